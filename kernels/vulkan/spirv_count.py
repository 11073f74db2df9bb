#!/usr/bin/env python3
"""Count SPIR-V instructions of a loop body (a lane's work per iteration).
usage: spirv_count.py FILE.spvasm LOOP [TRIPS ...]
LOOP: which OpLoopMerge (0-based, textual order) is the per-step loop.
Inner loops kept as loops by glslc are multiplied by the given trip counts
(in textual order). Reports: all instructions, scalar ops (vector ops count
per component; composite extract/construct, access chains, phis, branches,
labels, merges, bitcasts, copies left out) and loads (those from shared
memory apart)."""
import re, sys
FREE = {"OpLabel","OpBranch","OpBranchConditional","OpSelectionMerge","OpLoopMerge","OpPhi",
        "OpAccessChain","OpInBoundsAccessChain","OpCompositeExtract","OpCompositeConstruct",
        "OpBitcast","OpCopyObject","OpVectorShuffle","OpReturn","OpUndef"}
lines = open(sys.argv[1]).read().splitlines()
loopnum = int(sys.argv[2]); trips = [int(a) for a in sys.argv[3:]]
# type widths
width = {}
for l in lines:
    m = re.match(r'\s*(%\S+) = OpTypeVector (%\S+) (\d+)', l)
    if m: width[m.group(1)] = int(m.group(3))
body = []
started = False
for l in lines:
    if re.search(r'OpFunction ', l): started = True
    if started: body.append(l)
# blocks in textual order
blocks = []
for l in body:
    m = re.match(r'\s*(%\S+) = OpLabel', l)
    if m: blocks.append([m.group(1), []]); continue
    if blocks: blocks[-1][1].append(l.strip())
labels = [b[0] for b in blocks]
loops = []  # (header index, merge label)
for i, (lab, ins) in enumerate(blocks):
    for x in ins:
        m = re.match(r'OpLoopMerge (%\S+) (%\S+)', x)
        if m: loops.append((i, m.group(1)))
def region(hi, merge):
    return list(range(hi, labels.index(merge)))
hi, merge = loops[loopnum]
outer = region(hi, merge)
inner = [(h, m) for (h, m) in loops if h in outer and h != hi]
mult = {}
for k, (h, m) in enumerate(inner):
    for bi in region(h, m):
        mult[bi] = trips[k] if k < len(trips) else 1
def op_of(x):
    m = re.match(r'(%\S+ = )?(Op\w+)(.*)', x)
    return m.group(2), m.group(3)
# pointers to shared (Workgroup) memory
shared_ptr = set()
for l in lines:
    m = re.match(r'\s*(%\S+) = Op(?:In[Bb]ounds)?AccessChain %_ptr_Workgroup', l)
    if m: shared_ptr.add(m.group(1))
tot = sc = ld = lds = 0
for bi in outer:
    f = mult.get(bi, 1)
    for x in blocks[bi][1]:
        op, rest = op_of(x)
        tot += f
        if op == "OpLoad":
            ld += f
            if rest.split()[1] in shared_ptr: lds += f
        if op in FREE: continue
        w = 1
        t = rest.split()
        if t and t[0] in width: w = width[t[0]]
        sc += f * w
print(f"instructions {tot}  scalar-ops {sc}  loads {ld} (from shared memory {lds})")
