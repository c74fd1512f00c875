// Entry point of the flatc that build.rs compiles from vendor/flatbuffers-23.5.26/.
//
// It registers only the Rust generator (`--rust`), so the build compiles the parser, the
// command-line front end (src/flatc.cpp) and the Rust generator, and none of the other
// language generators. Options and output are those of upstream flatc 23.5.26 for Rust.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "flatbuffers/flatc.h"
#include "idl_gen_rust.h"

namespace {

const char *program_name = "flatc";

void Warn(const flatbuffers::FlatCompiler *, const std::string &warn,
          bool show_exe_name) {
  if (show_exe_name) { fprintf(stderr, "%s: ", program_name); }
  fprintf(stderr, "\nwarning:\n  %s\n\n", warn.c_str());
}

void Error(const flatbuffers::FlatCompiler *flatc, const std::string &err,
           bool usage, bool show_exe_name) {
  if (show_exe_name) { fprintf(stderr, "%s: ", program_name); }
  if (usage && flatc) {
    fprintf(stderr, "%s\n", flatc->GetShortUsageString(program_name).c_str());
  }
  fprintf(stderr, "\nerror:\n  %s\n\n", err.c_str());
  exit(1);
}

}  // namespace

// Declared in flatbuffers/flatc.h; generators report through these.
namespace flatbuffers {
void LogCompilerWarn(const std::string &warn) { Warn(nullptr, warn, true); }
void LogCompilerError(const std::string &err) {
  Error(nullptr, err, false, true);
}
}  // namespace flatbuffers

int main(int argc, const char *argv[]) {
  if (argc > 0) { program_name = argv[0]; }

  flatbuffers::FlatCompiler::InitParams params;
  params.warn_fn = Warn;
  params.error_fn = Error;
  flatbuffers::FlatCompiler flatc(params);
  flatc.RegisterCodeGenerator(
      flatbuffers::FlatCOption{ "r", "rust", "",
                                "Generate Rust files for tables/structs" },
      flatbuffers::NewRustCodeGenerator());

  const flatbuffers::FlatCOptions &options =
      flatc.ParseFromCommandLineArguments(argc, argv);
  return flatc.Compile(options);
}
