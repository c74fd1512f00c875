//! The layers of `docs/ARCHITECTURE.md`, checked on the source: every path a module of
//! `src/` names (`use crate::...`, `crate::a::b` in code, `super::...`) is an edge to the
//! module it names, and
//! - no edge between top-level modules goes up the layer table (a module may use its own
//!   layer's modules and those of the rows above it);
//! - no circle runs through the top-level modules, nor through the sibling files of any
//!   module directory (`dataset/read.rs` -> `dataset/files.rs` -> `dataset/read.rs`).
//!
//! Comments, string literals and a file's inline `mod tests { ... }` are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path below the crate root, e.g. `["dataset", "read"]`.
type ModPath = Vec<String>;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file of the library (the CLI under `src/bin` is above every layer), with
/// its module path.
fn library_files() -> Vec<(ModPath, PathBuf)> {
    let mut out = Vec::new();
    let mut pending = vec![(root().join("src"), Vec::<String>::new())];
    while let Some((dir, prefix)) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                if prefix.is_empty() && name == "bin" {
                    continue;
                }
                let mut p = prefix.clone();
                p.push(name);
                pending.push((path, p));
            } else if path.extension().is_some_and(|e| e == "rs") {
                let mut p = prefix.clone();
                if name != "mod" && name != "lib" {
                    p.push(name);
                }
                out.push((p, path));
            }
        }
    }
    out.sort();
    out
}

/// The source without comments and string literals (so that paths in docs do not count),
/// cut before an inline `mod tests {`.
fn code_of(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let text = match text.find("mod tests {") {
        Some(i) => &text[..i],
        None => &text[..],
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
        } else if text[i..].starts_with("/*") {
            i += text[i..].find("*/").map_or(text.len() - i, |j| j + 2);
        } else if bytes[i] == b'"' && !text[..i].ends_with('\'') {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' {
                i += if bytes[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The leaf paths of the use tree that starts at `code` (just after `crate::` or
/// `super::`): `a::{b::c, d}` gives `a::b::c` and `a::d`.
fn use_tree(code: &str) -> Vec<Vec<String>> {
    fn parse(s: &[u8], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
        let mut path = prefix;
        loop {
            while *i < s.len() && s[*i].is_ascii_whitespace() {
                *i += 1;
            }
            if *i < s.len() && s[*i] == b'{' {
                *i += 1;
                loop {
                    parse(s, i, path.clone(), out);
                    while *i < s.len() && s[*i].is_ascii_whitespace() {
                        *i += 1;
                    }
                    match s.get(*i) {
                        Some(b',') => {
                            *i += 1;
                            while *i < s.len() && s[*i].is_ascii_whitespace() {
                                *i += 1;
                            }
                            if s.get(*i) == Some(&b'}') {
                                *i += 1;
                                return;
                            }
                        }
                        Some(b'}') => {
                            *i += 1;
                            return;
                        }
                        _ => return,
                    }
                }
            }
            let start = *i;
            while *i < s.len() && (s[*i].is_ascii_alphanumeric() || s[*i] == b'_') {
                *i += 1;
            }
            if start == *i {
                out.push(path);
                return;
            }
            path.push(String::from_utf8_lossy(&s[start..*i]).into_owned());
            if s[*i..].starts_with(b"::") {
                *i += 2;
            } else {
                out.push(path);
                return;
            }
        }
    }
    let mut out = Vec::new();
    parse(code.as_bytes(), &mut 0, Vec::new(), &mut out);
    out
}

/// The names `src/lib.rs` re-exports at the crate root, with the module each comes from.
fn root_exports() -> BTreeMap<String, String> {
    let code = code_of(&root().join("src/lib.rs"));
    let mut out = BTreeMap::new();
    for (at, _) in code.match_indices("use ") {
        let head = &code[..at];
        if !head.trim_end().ends_with("pub") && !head.trim_end().ends_with("pub(crate)") {
            continue;
        }
        for path in use_tree(&code[at + 4..]) {
            if let (Some(first), Some(last)) = (path.first(), path.last()) {
                out.insert(last.clone(), first.clone());
            }
        }
    }
    out
}

/// Where each module's code points: module path -> the paths it names.
fn references(files: &[(ModPath, PathBuf)]) -> BTreeMap<ModPath, Vec<ModPath>> {
    let modules: BTreeSet<ModPath> = files.iter().map(|(m, _)| m.clone()).collect();
    let exports = root_exports();
    let resolve = |path: Vec<String>| -> Option<ModPath> {
        // The longest prefix that is a module; a root re-export names its module.
        let first = path.first()?;
        if !modules.contains(&vec![first.clone()]) {
            return exports.get(first).map(|m| vec![m.clone()]);
        }
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| modules.contains(p))
    };
    let mut out = BTreeMap::new();
    for (module, path) in files {
        let code = code_of(path);
        // `super` of `a/b.rs` (module `a::b`) and of `a/mod.rs` (module `a`) alike is the
        // module path without its last name.
        let parent: ModPath = module[..module.len().saturating_sub(1)].to_vec();
        let mut named = Vec::new();
        for (at, _) in code.match_indices("crate::") {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            named.extend(use_tree(&code[at + 7..]).into_iter().filter_map(&resolve));
        }
        for (at, _) in code.match_indices("super::") {
            if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
                continue;
            }
            for tail in use_tree(&code[at + 7..]) {
                let mut full = parent.clone();
                full.extend(tail);
                if parent.is_empty() {
                    named.extend(resolve(full));
                } else {
                    named.extend(
                        (parent.len()..=full.len())
                            .rev()
                            .map(|n| full[..n].to_vec())
                            .find(|p| modules.contains(p)),
                    );
                }
            }
        }
        named.retain(|p| p != module);
        out.insert(module.clone(), named);
    }
    out
}

/// The layer table of `docs/ARCHITECTURE.md`: each top-level module with its row.
fn layers() -> BTreeMap<String, usize> {
    let doc = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let table = doc
        .split("## Layers")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a `## Layers` section");
    let mut out = BTreeMap::new();
    let rows = table
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2);
    for (row, line) in rows.enumerate() {
        let place = line.split('|').nth(2).unwrap_or_default();
        for (at, _) in place.match_indices("`src/") {
            let rest = &place[at + 5..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..end];
            if name != "bin" && name != "lib" && !name.is_empty() {
                out.insert(name.to_string(), row);
            }
        }
    }
    out
}

/// A circle in `edges`, if any, as the list of its nodes.
fn circle<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(
        n: &N,
        edges: &BTreeMap<N, BTreeSet<N>>,
        state: &mut BTreeMap<N, u8>,
        stack: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let from = stack.iter().position(|m| m == n).unwrap_or(0);
                let mut c = stack[from..].to_vec();
                c.push(n.clone());
                return Some(c);
            }
            _ => {}
        }
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    edges
        .keys()
        .find_map(|n| visit(n, edges, &mut state, &mut Vec::new()))
}

#[test]
fn every_top_level_module_has_a_layer_and_no_edge_goes_up() {
    let files = library_files();
    let layers = layers();
    let refs = references(&files);
    let mut problems = Vec::new();
    let tops: BTreeSet<&String> = files.iter().filter_map(|(m, _)| m.first()).collect();
    for top in &tops {
        if !layers.contains_key(*top) {
            problems.push(format!(
                "src/{top} has no row in the layer table of docs/ARCHITECTURE.md"
            ));
        }
    }
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, named) in &refs {
        let Some(a) = from.first() else { continue };
        for to in named {
            let Some(b) = to.first() else { continue };
            if a == b {
                continue;
            }
            edges.entry(a.clone()).or_default().insert(b.clone());
            if let (Some(&la), Some(&lb)) = (layers.get(a), layers.get(b)) {
                if lb > la {
                    problems.push(format!(
                        "{} uses {} (layer row {lb}), below it in the table (row {la})",
                        from.join("::"),
                        to.join("::")
                    ));
                }
            }
        }
    }
    if let Some(c) = circle(&edges) {
        problems.push(format!("import circle: {}", c.join(" -> ")));
    }
    problems.dedup();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_circle_among_the_files_of_a_module() {
    let files = library_files();
    let refs = references(&files);
    // Edges between siblings: `a::b` naming `a::c` or anything below it.
    let mut edges: BTreeMap<ModPath, BTreeSet<ModPath>> = BTreeMap::new();
    for (from, named) in &refs {
        for to in named {
            let shared = from.iter().zip(to).take_while(|(x, y)| x == y).count();
            if shared < from.len() && shared < to.len() {
                let a = from[..=shared].to_vec();
                let b = to[..=shared].to_vec();
                if a != b {
                    edges.entry(a).or_default().insert(b);
                }
            }
        }
    }
    if let Some(c) = circle(&edges) {
        let names: Vec<String> = c.iter().map(|m| m.join("::")).collect();
        panic!("import circle: {}", names.join(" -> "));
    }
}

#[test]
fn use_trees_expand_to_their_leaves() {
    let leaves = use_tree("a::{b::c, d::{e, f}}, g};");
    let joined: Vec<String> = leaves.iter().map(|p| p.join("::")).collect();
    assert_eq!(joined, ["a::b::c", "a::d::e", "a::d::f"]);
    assert_eq!(use_tree("x::y;")[0].join("::"), "x::y");
}
