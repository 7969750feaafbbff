#!/usr/bin/env bash
# tools_test.sh TOOLS_DIR DEMO SCRATCH — runs each tool and reports every unexpected result.
set -uo pipefail
tools=$1 demo=$2 scratch=$3
kernels=$(cd "$(dirname "$0")/../../examples/kernels" && pwd)
mesa_examples=$(cd "$(dirname "$0")/../mesa_computerator_examples" && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
failures=0

# expect NAME STATUS PATTERN COMMAND...: the command exits with STATUS (0 or nonzero) and its
# combined output matches PATTERN.
expect() {
  local name=$1 status=$2 pattern=$3; shift 3
  local output code
  output=$("$@" 2>&1); code=$?
  if { [ "$status" = 0 ] && [ $code -ne 0 ]; } || { [ "$status" != 0 ] && [ $code -eq 0 ]; } ||
     ! grep -qE -- "$pattern" <<<"$output"; then
    echo "FAIL: $name (exit $code)"; echo "$output" | head -20; failures=$((failures + 1))
  else
    echo "ok: $name"
  fi
}

# adreno-info
expect "info: text on the virtual device" 0 "Adreno 630 \(kgsl, virtual\)" "$tools/adreno-info" --virtual
expect "info: JSON on virtual MSM" 0 '"kernel_interface": "msm"' "$tools/adreno-info" --json --device virtual-msm
expect "info: limits" 0 "invocations_per_work_group +1024" "$tools/adreno-info" --virtual
# a740: named from its chip id (0x43050a01 is not core.major.minor bytes), with its 3 MiB of GMEM.
expect "info: an a740 names its part" 0 "Adreno 740 \(kgsl, virtual\)" "$tools/adreno-info" --device virtual-kgsl:a740
expect "info: an a740 shows its chip id" 0 "chip id +0x43050a01" "$tools/adreno-info" --device virtual-msm:a740
expect "info: an a740 shows its GMEM" 0 "GMEM +3072 KiB" "$tools/adreno-info" --device virtual-kgsl:a740
# a730 and a750: named from their chip ids through either kernel (msm reports GPU_ID 0 for them).
expect "info: an a730 names its part" 0 "Adreno 730 \(msm, virtual\)" "$tools/adreno-info" --device virtual-msm:a730
expect "info: an a730 shows its chip id" 0 "chip id +0x07030001" "$tools/adreno-info" --device virtual-kgsl:a730
expect "info: an a730 shows its GMEM" 0 "GMEM +2048 KiB" "$tools/adreno-info" --device virtual-msm:a730
expect "info: an a750 names its part" 0 "Adreno 750 \(kgsl, virtual\)" "$tools/adreno-info" --device virtual-kgsl:a750
expect "info: an a750 shows its chip id" 0 "chip id +0x43051401" "$tools/adreno-info" --device virtual-msm:a750
expect "info: an a750 shows its GMEM" 0 "GMEM +3072 KiB" "$tools/adreno-info" --device virtual-msm:a750
expect "info: an unknown device is refused" 1 "not one of kgsl" "$tools/adreno-info" --device cuda
expect "info: an unknown option is refused" 1 "--frobnicate" "$tools/adreno-info" --frobnicate

# adreno-decode on the demo's own submissions
ADRENO_DUMP=$scratch "$demo" >/dev/null || { echo "FAIL: demo with ADRENO_DUMP"; failures=$((failures + 1)); }
dump=$(ls "$scratch"/*.rd 2>/dev/null | head -n 1)
expect "decode: an .rd dump of a submission" 0 "CP_MEM_WRITE.*CP_EVENT_WRITE|CP_EVENT_WRITE" "$tools/adreno-decode" "$dump"
expect "decode: registers by name" 0 "CP_REG_TO_MEM" "$tools/adreno-decode" "$dump"
expect "decode: the compute state and launch" 0 "SP_CS_CNTL_0" "$tools/adreno-decode" "$dump"
# Every submission starts with the queue's prologue: the dump must show it, not only the user IBs.
expect "decode: the dump holds the prologue's per-chip setup" 0 "SP_CHICKEN_BITS" "$tools/adreno-decode" "$dump"
expect "decode: shaders disassembled inline" 0 "mad.u24 r3.y, r2.x, r3.x, r2.y" "$tools/adreno-decode" "$dump"
# An a740 submission decodes as a7xx: CP_EVENT_WRITE7 and the a7xx register homes by name.
mkdir -p "$scratch/a740"
ADRENO_DEVICE=virtual-kgsl:a740 ADRENO_DUMP=$scratch/a740 "$demo" >/dev/null ||
  { echo "FAIL: demo on virtual-kgsl:a740 with ADRENO_DUMP"; failures=$((failures + 1)); }
dump_a740=$(ls "$scratch"/a740/*.rd 2>/dev/null | head -n 1)
expect "decode: an a740 dump decodes CP_EVENT_WRITE7" 0 "CP_EVENT_WRITE7" "$tools/adreno-decode" "$dump_a740"
expect "decode: an a740 dump names a7xx registers" 0 "SP_CS_NDRANGE_7" "$tools/adreno-decode" "$dump_a740"
# An a750 submission carries the a750's own per-chip registers (freedreno_devices.py FD750).
mkdir -p "$scratch/a750"
ADRENO_DEVICE=virtual-kgsl:a750 ADRENO_DUMP=$scratch/a750 "$demo" >/dev/null ||
  { echo "FAIL: demo on virtual-kgsl:a750 with ADRENO_DUMP"; failures=$((failures + 1)); }
dump_a750=$(ls "$scratch"/a750/*.rd 2>/dev/null | head -n 1)
expect "decode: an a750 dump names the a750's per-chip registers" 0 "VPC_FLATSHADE_MODE_CNTL" "$tools/adreno-decode" "$dump_a750"
head -c 10 /dev/urandom > "$scratch/garbage.rd"
expect "decode: a truncated dump is refused" 1 "adreno-decode: " "$tools/adreno-decode" "$scratch/garbage.rd"
expect "decode: a missing file is refused" 1 "cannot open" "$tools/adreno-decode" "$scratch/missing.rd"
printf '\x00\x80\x10\x70' > "$scratch/nop.bin"
expect "decode: a raw stream" 0 "CP_NOP" "$tools/adreno-decode" --raw "$scratch/nop.bin"
printf '\x00\x80\x10' > "$scratch/odd.bin"
expect "decode: a raw stream of partial dwords is refused" 1 "whole number of dwords" "$tools/adreno-decode" --raw "$scratch/odd.bin"

# adreno-asm / adreno-disasm round trip
cat > "$scratch/add.s" <<'ASM'
@localsize 32, 1, 1
@buf 4096 (c0.x)
mov.u32u32 r0.x, c0.x
(rpt1)nop
add.u r0.y, r0.x, r0.x
end
ASM
expect "asm: assembles with metadata" 0 "instrlen" "$tools/adreno-asm" "$scratch/add.s" -o "$scratch/add.bin" -j -
expect "disasm: disassembles what asm wrote" 0 "add.u r0.y, r0.x, r0.x" "$tools/adreno-disasm" "$scratch/add.bin"
printf 'mov.u32u32 r0.x, c0.x\nfrobnicate r0.x\n' > "$scratch/bad.s"
expect "asm: a bad instruction names line and column" 1 "2:1" "$tools/adreno-asm" "$scratch/bad.s" -o "$scratch/bad.bin"

# adreno-asm --check / --legalize: vector_add.s without its waits (every (sy), (ss), (nopN), nop).
sed -E -e '/^[[:space:]]*(\([a-z0-9]+\))*nop[[:space:]]*$/d' -e 's/\((sy|ss|nop[0-9])\)//g' "$kernels/vector_add.s" > "$scratch/bare.s"
expect "asm: --check names each hazard with its rule and fix" 1 "timing hazard: .*reads r2.x before a load from memory.*fix: add \(sy\)" \
  "$tools/adreno-asm" "$scratch/bare.s" --check
expect "asm: --check accepts the example as written" 0 "" "$tools/adreno-asm" "$kernels/vector_add.s" --check
expect "asm: --legalize then --check finds nothing" 0 "" "$tools/adreno-asm" "$scratch/bare.s" --legalize --check -o "$scratch/legal.bin"
expect "asm: --legalized-source writes the waits into the text" 0 "" "$tools/adreno-asm" "$scratch/bare.s" --legalized-source "$scratch/legal.s"
grep -q "(sy)" "$scratch/legal.s" || { echo "FAIL: asm: legalized source has no (sy)"; failures=$((failures + 1)); }
expect "asm: an unencodable flag is refused" 1 "\(ss\) cannot be encoded on a cat6" "$tools/adreno-asm" /dev/stdin -o "$scratch/x.bin" <<<'(ss)stl.u32 l[r0.x], r1.x, 1'

# adreno-run
run_add=("$tools/adreno-run" --virtual "$kernels/vector_add.s" -a buf:1024xu32 -a buf:1024xu32:iota -a buf:1024xu32:iota -g 16)
expect "run: an assembly kernel, outputs printed" 0 "arg 0 \(1024 x u32\): 0 2 4 6 8 10" "${run_add[@]}" -p 0
expect "run: GPU time per dispatch" 0 "GPU time [0-9.]+ us average" "${run_add[@]}" -r 3
expect "run: 128-wide waves on virtual MSM" 0 "0 2 4 6" "$tools/adreno-run" -d virtual-msm "$kernels/vector_add.s" \
  -a buf:1024xu32 -a buf:1024xu32:iota -a buf:1024xu32:iota -g 16 --threadsize 128 -p 0
expect "run: outputs saved to a file" 0 "GPU time" "${run_add[@]}" -o "0:$scratch/out.bin"
[ "$(stat -c %s "$scratch/out.bin" 2>/dev/null)" = 4096 ] || { echo "FAIL: run: saved file size"; failures=$((failures + 1)); }
expect "run: --trace writes a timeline" 0 "GPU time" "${run_add[@]}" -r 2 --trace "$scratch/trace.json"
expect "run: the timeline names each dispatch after its program and grid" 0 \
  '"name":"[^"]* 16x1x1 groups of [0-9]+x1x1".*"name":"[^"]* 16x1x1 groups of [0-9]+x1x1"' cat "$scratch/trace.json"
expect "run: the timeline is Chrome trace-event JSON" 0 '^\{"displayTimeUnit":"ns","traceEvents":\[' cat "$scratch/trace.json"
expect "run: a wrong argument count is refused" 1 "takes 3 arguments; 1 given" "$tools/adreno-run" --virtual "$kernels/vector_add.s" -a buf:16xu32
expect "run: an unknown fill is refused" 1 "unknown fill" "$tools/adreno-run" --virtual "$kernels/vector_add.s" \
  -a buf:1024xu32:sparkles -a buf:1024xu32 -a buf:1024xu32
# Found by fuzz/run_arguments_fuzzer: 2^62+1 u32 elements is 4 bytes once the size wraps around;
# the tool allocated that and filled 2^62+1 elements past it.
expect "run: a buffer whose byte size wraps around is refused" 1 "more bytes than memory holds" "$tools/adreno-run" \
  --virtual "$kernels/vector_add.s" -a buf:4611686018427387905xu32:iota -a buf:1024xu32 -a buf:1024xu32
expect "run: an unknown element type is refused" 1 "unknown element type" "$tools/adreno-run" --virtual "$kernels/vector_add.s" -a buf:4xq7
expect "run: an invalid wave size is refused" 1 "threadsize" "$tools/adreno-run" --virtual "$kernels/vector_add.s" --threadsize 96
expect "run: a local size other than the kernel's is refused" 1 "compiled for 64" "${run_add[@]}" -l 32
expect "run: a kernel without waits is a shader fault naming the hazard" 1 "timing hazard.*rule" "$tools/adreno-run" --virtual "$scratch/bare.s" \
  -a buf:1024xu32 -a buf:1024xu32:iota -a buf:1024xu32:iota -g 16
expect "run: --legalize runs it correctly" 0 "arg 0 \(1024 x u32\): 0 2 4 6 8 10" "$tools/adreno-run" --virtual --legalize "$scratch/bare.s" \
  -a buf:1024xu32 -a buf:1024xu32:iota -a buf:1024xu32:iota -g 16 -p 0
expect "run: a missing kernel file is refused" 1 "cannot open" "$tools/adreno-run" --virtual "$scratch/none.s"
# computerator's buffers: with no --arg, each @buf is a storage buffer holding its listed values,
# and @const values are in place (out[i] = in[i] + 1000 through UAV slot 0).
cat > "$scratch/uav.s" <<'ASM'
@localsize 8, 1, 1
@buf 8 10, 20, 30, 40, 50, 60, 70, 80
@const(c0.x) 1000, 0, 0, 0
@invocationid(r0.x)
ldib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
(sy)add.u r1.x, r1.x, c0.x
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r1.x, r0.x, 0
end
ASM
expect "run: @buf initial values and @const values with no --arg" 0 "arg 0 \(8 x u32\): 1010 1020 1030 1040 1050 1060 1070 1080" \
  "$tools/adreno-run" --virtual "$scratch/uav.s" -g 1 -p 0
expect "run: @buf initial values on virtual MSM" 0 "1010 1020 1030" "$tools/adreno-run" -d virtual-msm "$scratch/uav.s" -g 1 -p 0
# The directives that size what the hardware sets up — @branchstack, @localmem, @pvtmem — with no
# --arg: each @buf a zero-filled storage buffer.
cat > "$scratch/localmem.s" <<'ASM'
@localsize 4, 1, 1
@buf 4
@invocationid(r0.x)
@localmem 16
shl.b r1.x, r0.x, 2
add.u r1.y, r0.x, 100
xor.b r1.z, r0.x, 1
(rpt2)nop
shl.b r1.w, r1.z, 2
(rpt5)nop
stl.u32 l[r1.x], r1.y, 1
bar
(ss)nop
(sy)ldl.u32 r2.x, l[r1.w], 1
(ss)add.u r2.x, r2.x, r1.x
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r2.x, r0.x, 0
end
ASM
cat > "$scratch/pvtmem.s" <<'ASM'
@localsize 4, 1, 1
@buf 4
@pvtmem 8
@invocationid(r0.x)
shl.b r1.x, r0.x, 3
mov.u32u32 r2.x, 0
(rpt5)nop
stp.u32 p[r2.x + 4], r1.x, 1
ldp.u32 r3.x, p[r2.x + 4], 1
(sy)add.u r3.x, r3.x, 5
(rpt5)nop
stib.b.untyped.1d.u32.1.imm r3.x, r0.x, 0
end
ASM
# Lane i stores 100 + (i ^ 1) + 4i: its neighbour's value through local memory.
expect "run: @localmem with no --arg" 0 "arg 0 \(4 x u32\): 101 104 111 114$" "$tools/adreno-run" --virtual "$scratch/localmem.s" -g 1 -p 0
# Lane i stores 8i + 5, round-tripped through private memory.
expect "run: @pvtmem with no --arg" 0 "arg 0 \(4 x u32\): 5 13 21 29$" "$tools/adreno-run" -d virtual-msm "$scratch/pvtmem.s" -g 1 -p 0
# Mesa's own examples: branch.asm (@branchstack 1) stores 0x87654321 for lane 0 and 0x12345678
# for the others; simple.asm stores 0x12345678 at buf[0].
expect "run: Mesa's branch.asm (@branchstack) with no --arg" 0 "arg 0 \(16 x u32\): 2271560481 305419896 305419896" \
  "$tools/adreno-run" --virtual "$mesa_examples/branch.asm" -g 1 -p 0
expect "run: Mesa's simple.asm with no --arg" 0 "arg 0 \(4 x u32\): 305419896 0 0 0$" \
  "$tools/adreno-run" -d virtual-msm "$mesa_examples/simple.asm" -g 1 -p 0

echo "$failures failed"
[ $failures -eq 0 ]
