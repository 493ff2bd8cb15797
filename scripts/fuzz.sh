#!/usr/bin/env bash
# Builds one libFuzzer target of tests/fuzz/ (libFuzzer + ASan + UBSan) and runs it, seeded from the corpus and from
# the project's own tests, then says how many inputs ran. Not part of CI.
# Usage: scripts/fuzz.sh TARGET [RUNS] [libFuzzer options...]
#   TARGET    what is read (tests/fuzz/TARGET_fuzz.cpp)             seeds
#   codeobject   ELF code objects and their metadata                  corpus *.co, *.hsaco
#   parser       assembly text through the preprocessor and parser    corpus *.s in pieces, tests/ir string literals
#   edit_script  JSON edit scripts, against a small kernel            edit scripts in tests/ and examples/
#   launch_spec  launch spec files                                    launch files in the corpus and tests/, examples/
#   llm_reply    a chat model's reply and the server's HTTP body      replies in tests/agent, the edit-script seeds
#   RUNS defaults to $ASMEVO_FUZZ_RUNS or 1000000; e.g. scripts/fuzz.sh parser 200000 -jobs=1
#   -timeout=10 (seconds per input) is passed first, so a later -timeout=N wins.
#   Seeds come from ${ASMEVO_CORPUS_DIR:-../shared/corpus}; everything is written under a fresh temporary folder
#   (never into the repository), which is kept and printed so that crashes can be replayed.
#   Python 3 extracts the seeds written as string literals in tests/ (skipped, with a warning, without it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
targets="codeobject parser edit_script launch_spec llm_reply"
usage() { echo "usage: scripts/fuzz.sh TARGET [RUNS] [libFuzzer options...]; TARGET is one of: $targets" >&2; exit 2; }
[ $# -ge 1 ] || usage
target=$1
shift
case " $targets " in *" $target "*) ;; *) usage ;; esac
runs=${1:-${ASMEVO_FUZZ_RUNS:-1000000}}
[ $# -gt 0 ] && shift
corpus_src=${ASMEVO_CORPUS_DIR:-$here/../shared/corpus}
cxx=${ASMEVO_FUZZ_CXX:-clang++-22}
command -v "$cxx" >/dev/null || { echo "error: $cxx not found (Debian: clang-22, libclang-rt-22-dev)" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/asmevo-fuzz-$target.XXXXXX")
seeds_dir=$work/corpus
mkdir -p "$seeds_dir" "$work/artifacts"
# nlohmann/json: its pkg-config file when there is one, else the compiler's default include path (/usr/include).
json_flags=$(pkg-config --cflags nlohmann_json 2>/dev/null || true)
extra_flags=()
case $target in
  edit_script | llm_reply)
    # agent/ includes codeobject/module.hpp, which includes LLVM MC's headers (mc/encode.hpp), though nothing these
    # targets run calls into LLVM: the headers suffice, and with the ABI-check symbol they reference turned off,
    # no LLVM library is linked.
    llvm_inc=$(llvm-config-22 --includedir 2>/dev/null || echo /usr/lib/llvm-22/include)
    extra_flags=(-isystem "$llvm_inc" -DLLVM_DISABLE_ABI_BREAKING_CHECKS_ENFORCING=1)
    ;;
esac
if [ "$target" = llm_reply ]; then
  # Each input sends two chat requests whose bodies (the prompt, several KB) nlohmann serializes: without coverage
  # tracing there, the target runs about twice as fast, and no branch of ours is lost (sanitizers still check it).
  echo 'fun:*nlohmann*serializer*' > "$work/coverage-ignore.txt"
  extra_flags+=(-fsanitize-coverage-ignorelist="$work/coverage-ignore.txt")
fi

echo "== building $work/${target}_fuzz"
# -Wno-deprecated-declarations: libstdc++ 12's std::stable_sort uses get_temporary_buffer, which clang 22 flags.
# shellcheck disable=SC2086
"$cxx" -std=c++20 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined \
  -fno-sanitize-recover=undefined -Wno-deprecated-declarations -I "$here/include" $json_flags "${extra_flags[@]}" \
  "$here/tests/fuzz/${target}_fuzz.cpp" -o "$work/${target}_fuzz"

# ---- seeds -----------------------------------------------------------------------------------------------------------

# copy_seeds FIND-ARGS...: every file of the corpus that `find` selects, as one seed.
copy_seeds() {
  [ -d "$corpus_src" ] || return 0
  while IFS= read -r -d '' f; do
    rel=${f#"$corpus_src"/}
    cp "$f" "$seeds_dir/${rel//\//_}"
  done < <(find "$corpus_src" -type f "$@" -print0)
}

# copy_local FILES...: files of the repository, as seeds.
copy_local() {
  for f in "$@"; do
    [ -f "$f" ] || continue
    rel=${f#"$here"/}
    cp "$f" "$seeds_dir/${rel//\//_}"
  done
}

# split_asm FIND-ARGS...: each corpus .s file in pieces of 40 lines, so that an input runs in about a millisecond; every
# piece starts with the file's .include, .amdgcn_target and .set lines, which the rest refers to.
split_asm() {
  [ -d "$corpus_src" ] || return 0
  while IFS= read -r -d '' f; do
    rel=${f#"$corpus_src"/}
    awk -v out="$seeds_dir/${rel//\//_}" -v n=40 '
      function head(l) { return l ~ /^[ \t]*\.(include|amdgcn_target|set)[ \t]/ }
      function flush() {
        if (body != "") { printf "%s%s", hdr, body > (out "." k ".s"); close(out "." k ".s"); k++ }
        body = ""; c = 0
      }
      FNR == NR { if (head($0)) hdr = hdr $0 "\n"; next }
      !head($0) { body = body $0 "\n"; if (++c == n) flush() }
      END { flush() }' "$f" "$f"
  done < <(find "$corpus_src" -type f "$@" -print0)
}

# literals PATTERN FILES...: the C++ string literals of FILES ("..." "..." joined, R"(...)" as written) whose text
# matches the Python regular expression PATTERN, one seed each.
literals() {
  if ! command -v python3 >/dev/null; then
    echo "warning: no python3; seeds from string literals in tests/ skipped" >&2
    return 0
  fi
  python3 - "$seeds_dir" "$here" "$@" <<'PY'
import hashlib, os, re, sys
out, root, pattern, files = sys.argv[1], sys.argv[2], re.compile(sys.argv[3], re.S), sys.argv[4:]
lit = re.compile(r'R"([^(\s]{0,16})\((.*?)\)\1"|"((?:[^"\\\n]|\\.)*)"', re.S)
gap = re.compile(r'(?:\s|//[^\n]*)*\Z')
esc = re.compile(r'\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)', re.S)
simple = {'n': '\n', 't': '\t', 'r': '\r', '0': '\0', 'a': '\a', 'b': '\b', 'f': '\f', 'v': '\v'}
def unescape(s):
    def one(m):
        e = m.group(1)
        if e[0] == 'x': return chr(int(e[1:], 16))
        if e[0] in '01234567' and (len(e) > 1 or e != '0'): return chr(int(e, 8))
        return simple.get(e, e)
    return esc.sub(one, s)
count = 0
for path in files:
    text = open(path, encoding='utf-8', errors='replace').read()
    found, cur, end = [], None, -1
    for m in lit.finditer(text):
        if m.group(2) is not None:  # a raw string stands alone
            if cur is not None: found.append(cur)
            found.append(m.group(2)); cur = None; continue
        piece = unescape(m.group(3))
        if cur is not None and gap.match(text, end, m.start()): cur += piece
        else:
            if cur is not None: found.append(cur)
            cur = piece
        end = m.end()
    if cur is not None: found.append(cur)
    rel = os.path.relpath(path, root).replace('/', '_')
    for s in found:
        if not pattern.search(s): continue
        data = s.encode('utf-8', errors='surrogateescape')
        with open(os.path.join(out, rel + '.' + hashlib.sha1(data).hexdigest()[:12]), 'wb') as f: f.write(data)
        count += 1
print(f"   {count} string literals from {len(files)} test files", file=sys.stderr)
PY
}

shopt -s nullglob
case $target in
  codeobject)
    copy_seeds \( -name '*.co' -o -name '*.hsaco' \)
    ;;
  parser)
    split_asm \( -name '*.s' -o -name '*.amdgcn' \)
    literals '\n|^\s*[a-z_][a-z0-9_]+ ' "$here"/tests/ir/{parser,preprocess,printer,line_parser}_test.cpp
    # The MIOpen helpers, for the .include lines of its kernels (the target reads them once, by name).
    mkdir -p "$work/include"
    [ -d "$corpus_src" ] && find "$corpus_src" -type f -name '*.inc' -exec cp {} "$work/include/" \;
    export ASMEVO_FUZZ_INCLUDE_DIR=$work/include
    ;;
  edit_script)
    literals '"edits"|"op"' "$here"/tests/passes/*.cpp "$here"/tests/agent/*.cpp "$here"/examples/*.cpp
    ;;
  launch_spec)
    copy_seeds -path '*/triton/*' -name '*.json'
    copy_seeds -path '*/inductor-dev/*' -name '*.json'
    copy_local "$here"/tests/data/launch/*/*.json "$here"/examples/launch/*.json
    literals '"grid"|"args"|"buffer"' "$here"/tests/verify/launch_spec_test.cpp "$here"/tests/verify/kernargs_test.cpp
    # Relative file inits resolve here (the target never reads files elsewhere for materializing).
    mkdir -p "$work/launch"
    head -c 64 /dev/zero > "$work/launch/f.bin"
    export ASMEVO_FUZZ_LAUNCH_DIR=$work/launch
    ;;
  llm_reply)
    literals '```|"choices"|"edits"' "$here"/tests/agent/*.cpp
    literals '"edits"' "$here"/tests/passes/*.cpp "$here"/examples/*.cpp
    # A reply and a server body that echo the test key (llm_reply_fuzz.cpp's kKey), which the client must redact.
    key=sk-fuzz-0123456789SECRET
    # shellcheck disable=SC2016  # the backquotes are a Markdown fence, not a command
    printf '```json\n{"comment": "%s", "edits": [{"op": "delete", "at": "i19", "why": "%s"}]}\n```\n' "$key" "$key" \
      > "$seeds_dir/echo-key-reply"
    # shellcheck disable=SC2016
    printf '{"choices": [{"message": {"content": "```json\\n{\\"edits\\": []}\\n```"}, "finish_reason": "%s"}], %s}' \
      "$key" "\"error\": {\"message\": \"$key\"}" > "$seeds_dir/echo-key-body"
    ;;
esac
seeds=$(find "$seeds_dir" -type f | wc -l)
echo "== $seeds seeds from $corpus_src and the repository's tests"
[ "$seeds" -gt 0 ] || echo "warning: no seeds; the fuzzer starts from empty input" >&2

# ---- run -------------------------------------------------------------------------------------------------------------

echo "== running $runs inputs (log: $work/fuzz.log)"
status=0
# From inside the work folder: with -jobs=N libFuzzer writes its workers' logs (fuzz-N.log) to the current folder.
(cd "$work" && "./${target}_fuzz" -runs="$runs" -timeout=10 -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$@" "$seeds_dir") > "$work/fuzz.log" 2>&1 || status=$?
logs=("$work"/fuzz*.log)
tail -n 25 "${logs[@]}"
done_line=$(cat "${logs[@]}" | grep -oE 'Done [0-9]+ runs in [0-9]+ second' | tail -n 1 || true)
ran=$(cat "${logs[@]}" | grep -oE 'stat::number_of_executed_units: *[0-9]+' | grep -oE '[0-9]+$' | tail -n 1 || true)
echo "== ${done_line:-no completion line}; inputs executed: ${ran:-unknown}; exit status $status"
artifacts=("$work"/artifacts/*)
if [ "$status" -ne 0 ] || [ ${#artifacts[@]} -gt 0 ]; then
  env_vars=$(env | grep -E '^ASMEVO_FUZZ_(INCLUDE|LAUNCH)_DIR=' | tr '\n' ' ' || true)
  echo "== crash, hang or leak inputs in $work/artifacts/ (replay: ${env_vars}$work/${target}_fuzz <file>)"
  exit 1
fi
echo "== no crash; work folder $work"
