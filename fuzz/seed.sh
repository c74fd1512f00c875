#!/usr/bin/env bash
# Builds the fuzzers' starting corpora in fuzz/seeds/<target>/ (not committed):
# - the committed corpus fuzz/corpus/<target>/ (valid messages of every layout and type from
#   `cargo run --example fuzz_seeds`, plus every finding so far);
# - every message the hostile-input suites decode (malformed messages of every kind), written
#   by tests/common/seeds.rs while those suites run;
# - for record_batches, the valid IPC streams and files of every column kind that
#   tests/record_batch.rs writes;
# - for file_formats, record_batch_metadata and parquet, their committed corpora (the
#   file_formats corpus holds files written by numpy and scipy, the parquet corpus files
#   written by pyarrow and by this crate).
#
#   fuzz/seed.sh            then   fuzz/run.sh TARGET SECONDS
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seeds=fuzz/seeds
rm -rf "$seeds"
mkdir -p "$seeds/malformed"
ARROW_TENSOR_IPC_SEED_DIR="$PWD/$seeds/malformed" \
  cargo test --quiet --all-features --test malformed --test limits --test validation --test wire_facts >/dev/null
for t in decode_one read_stream roundtrip; do
  mkdir -p "$seeds/$t"
  cp fuzz/corpus/$t/* "$seeds/$t/"
done
# Single messages are also one-message streams.
cp "$seeds"/malformed/* "$seeds/decode_one/"
cp "$seeds"/malformed/* "$seeds/read_stream/"
mkdir -p "$seeds/record_batches"
cp fuzz/corpus/record_batches/* "$seeds/record_batches/"
ARROW_TENSOR_IPC_RB_SEEDS="$PWD/$seeds/record_batches" \
  cargo test --quiet --all-features --test record_batch fuzz_seeds_and_corpus_replay >/dev/null
for t in file_formats record_batch_metadata parquet; do
  mkdir -p "$seeds/$t"
  cp fuzz/corpus/$t/* "$seeds/$t/"
done
for t in decode_one read_stream roundtrip record_batches file_formats record_batch_metadata parquet; do
  echo "fuzz/seed.sh: $t: $(ls "$seeds/$t" | wc -l) seeds"
done
