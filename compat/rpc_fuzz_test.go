package compat

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRPCFuzzBITCOS is a bounded mutation fuzzer of the RPC server's BITCOS
// checks (issue 39): valid BITCOS graphs (MUL_MAT of a 2-D and a 3-D weight,
// GET_ROWS, MUL_MAT_ID), each changed by one to three random mutations of
// what a client controls (row index and bitmap bytes, shapes, strides,
// types, sources, views, data addresses, writers into the parts in the same
// graph or in an earlier one, a freed buffer before a recompute), sent to a
// loopback server in each CPU layout. The server must survive every
// iteration, and a graph whose only change is its row index or bitmap must
// be refused exactly when the index no longer fits (checked here in Go with
// ggml_bitcos_check_rows' rule). With $GGUF_BITCOS_LLAMA_ASAN_BIN the
// servers are that ASan build's and their logs must hold no report.
// $GGUF_BITCOS_RPC_FUZZ_ITERS (default 150 per layout) and
// $GGUF_BITCOS_RPC_FUZZ_SEED (default: the clock, logged) set the run.
func TestRPCFuzzBITCOS(t *testing.T) {
	llamaBin(t, "ggml-rpc-server")
	iters := 150
	if v, err := strconv.Atoi(os.Getenv("GGUF_BITCOS_RPC_FUZZ_ITERS")); err == nil && v > 0 {
		iters = v
	}
	seed := time.Now().UnixNano()
	if v, err := strconv.ParseInt(os.Getenv("GGUF_BITCOS_RPC_FUZZ_SEED"), 10, 64); err == nil {
		seed = v
	}
	asan := os.Getenv("GGUF_BITCOS_LLAMA_ASAN_BIN") != ""
	t.Logf("seed %d, %d iterations per layout, ASan build: %v", seed, iters, asan)
	for li, l := range hostileLayouts {
		t.Run(l.name, func(t *testing.T) {
			s := hostileServer(t, asan, l.env)
			rng := rand.New(rand.NewSource(seed + int64(li)))
			stats := map[string]int{}
			for i := 0; i < iters; i++ {
				f := newFuzzCase(rng)
				verdict := f.run(t, s)
				stats[verdict]++
				if s.exited() {
					t.Fatalf("iteration %d (seed %d, layout %s): the server exited after %s:\n%s",
						i, seed, l.name, f.desc(), tailString(s.output(), 4000))
				}
			}
			t.Logf("%s: %v", l.name, stats)
		})
	}
}

// fuzzCase is one iteration: a base graph and its mutations, applied once
// the graph is loaded (they need the server's addresses).
type fuzzCase struct {
	rng      *rand.Rand
	base     string
	muts     []string
	onlyData bool // the mutations changed only the row index or bitmap bytes
}

func newFuzzCase(rng *rand.Rand) *fuzzCase {
	return &fuzzCase{rng: rng, base: []string{"mul_mat", "mul_mat_3d", "get_rows", "mul_mat_id"}[rng.Intn(4)], onlyData: true}
}

func (f *fuzzCase) desc() string { return f.base + " with " + strings.Join(f.muts, "; ") }

// run loads and sends the case on a new connection: "refused", "ran", or
// "skipped" (a mutation the fuzzer cannot place). Fails the test when a
// graph with only its index changed gets the wrong verdict.
func (f *fuzzCase) run(t *testing.T, s *rpcServer) string {
	t.Helper()
	r, err := tryDialRPC(s.addr)
	if err != nil {
		t.Fatalf("%v (the server's log:)\n%s", err, tailString(s.output(), 3000))
	}
	defer r.c.Close()
	rng := f.rng
	var g *bitcosGraph
	switch f.base {
	case "mul_mat_3d", "mul_mat_id":
		g = newBitcosGraphShape(rng.Int63(), 4, 2)
	default:
		g = newBitcosGraph(rng.Int63())
	}
	// data mutations change what is set; they come first
	n := 1 + rng.Intn(3)
	kinds := make([]int, n)
	for i := range kinds {
		kinds[i] = rng.Intn(13)
		if kinds[i] > 1 {
			f.onlyData = false
		}
	}
	for _, k := range kinds {
		switch k {
		case 0: // a row index entry
			i := rng.Intn(len(g.rows) / 4)
			v := []int32{0, -1, -32, 1 << 30, -0x7f800000, g.rowsAt(i) + 1, g.rowsAt(i) - 1, int32(rng.Uint32())}[rng.Intn(8)]
			g.setRows(append(rowsPrefix(g, i), v)...)
			f.muts = append(f.muts, fmt.Sprintf("rows[%d] = %d", i, v))
		case 1: // a bitmap bit
			i, b := rng.Intn(len(g.bitmap)), byte(1)<<rng.Intn(8)
			g.bitmap[i] ^= b
			f.muts = append(f.muts, fmt.Sprintf("bitmap[%d] ^= %#x", i, b))
		}
	}
	g.load(t, r)
	switch f.base {
	case "mul_mat_3d":
		g.tx.ne = [4]uint32{256, 1, 2, 1}
		g.tx.nb = contiguousNB(ggmlTypeF32, g.tx.ne)
		g.tdst.ne = [4]uint32{4, 1, 2, 1}
		g.tdst.nb = contiguousNB(ggmlTypeF32, g.tdst.ne)
		g.tdst.data = g.base + 6144
	case "get_rows":
		g.getRows(t, r, int32(rng.Intn(4)), int32(rng.Intn(4)))
	case "mul_mat_id":
		ids := &rpcTensor{id: 70, typ: ggmlTypeI32, ne: [4]uint32{1, 1, 1, 1}, buffer: g.side, data: g.sideBase + offScratch, name: "ids"}
		ids.nb = contiguousNB(ids.typ, ids.ne)
		g.set(t, r, ids, binary.LittleEndian.AppendUint32(nil, uint32(rng.Intn(2))))
		g.tdst.op = ggmlOpMulMatID
		g.tdst.src[2] = ids.id
		g.more = []*rpcTensor{ids}
	}
	tensors := []*rpcTensor{&g.w, &g.ts, &g.tr, &g.td, &g.tx, &g.tdst}
	tensors = append(tensors, g.more...)
	pick := func() *rpcTensor { return tensors[rng.Intn(len(tensors))] }
	var before []*rpcTensor // a graph sent first (a writer in a graph of its own)
	recompute, freeFirst := false, false
	for wi, k := range kinds {
		w := uint64(80 + 3*wi) // a writer's ids: unique, or the graph's CPYs would not fit their sources
		switch k {
		case 2: // a dimension
			tn, d := pick(), rng.Intn(4)
			v := []uint32{0, 1, 2, 3, 5, 255, 256, 512, 2 * tn.ne[d]}[rng.Intn(9)]
			tn.ne[d] = v
			if tn.typ != ggmlTypeBITCOS {
				tn.nb = contiguousNB(tn.typ, tn.ne)
			}
			f.muts = append(f.muts, fmt.Sprintf("%s.ne[%d] = %d", tn.name, d, v))
		case 3: // a stride
			tn, d := pick(), rng.Intn(4)
			v := []uint32{0, 1, 2, 4, 16, 32, tn.nb[d] + 4, tn.nb[d] * 2}[rng.Intn(8)]
			tn.nb[d] = v
			f.muts = append(f.muts, fmt.Sprintf("%s.nb[%d] = %d", tn.name, d, v))
		case 4: // a type (not the weight's: an op on another type is
			// upstream's to check)
			tn := pick()
			for tn == &g.w {
				tn = pick()
			}
			v := []uint32{ggmlTypeF32, ggmlTypeF16, ggmlTypeI8, ggmlTypeI32, ggmlTypeBITCOS}[rng.Intn(5)]
			tn.typ = v
			f.muts = append(f.muts, fmt.Sprintf("%s.type = %d", tn.name, v))
		case 5: // a source slot of the op (not the weight's: an op on
			// another type is upstream's to check)
			j := 1 + rng.Intn(ggmlMaxSrc-1)
			v := uint64(0)
			if rng.Intn(3) > 0 {
				v = pick().id
			}
			g.tdst.src[j] = v
			f.muts = append(f.muts, fmt.Sprintf("op.src[%d] = %d", j, v))
		case 6: // the op
			v := []uint32{ggmlOpMulMat, ggmlOpMulMatID, ggmlOpGetRows}[rng.Intn(3)]
			g.tdst.op = v
			f.muts = append(f.muts, fmt.Sprintf("op = %d", v))
		case 7: // a view
			tn := pick()
			tn.viewSrc, tn.viewOffs = pick().id, uint64(rng.Intn(64))*4
			f.muts = append(f.muts, fmt.Sprintf("%s.view_src = %d + %d", tn.name, tn.viewSrc, tn.viewOffs))
		case 8: // a data address, within the buffer
			tn := pick()
			tn.data += uint64(rng.Intn(512)) - 256
			f.muts = append(f.muts, fmt.Sprintf("%s.data moved", tn.name))
		case 9, 10: // a writer into a part: beside the op, or in a graph of its own first
			part := []*rpcTensor{&g.w, &g.ts, &g.tr, &g.td}[rng.Intn(4)]
			m := uint32(1 + rng.Intn(4))
			src := &rpcTensor{id: w, typ: ggmlTypeI32, ne: [4]uint32{m, 1, 1, 1}, buffer: g.side, data: g.sideBase + offScratch2 + 64*uint64(wi), name: "wsrc"}
			src.nb = contiguousNB(src.typ, src.ne)
			g.set(t, r, src, make([]byte, 4*m))
			dst := &rpcTensor{id: w + 1, typ: ggmlTypeI32, ne: src.ne, nb: src.nb, buffer: g.buf, data: part.data, name: "wdst"}
			cpy := &rpcTensor{id: w + 2, typ: ggmlTypeI32, op: ggmlOpCpy, ne: src.ne, nb: src.nb, buffer: g.buf, data: part.data, name: "writer"}
			cpy.src[0], cpy.src[1] = src.id, dst.id
			if k == 9 {
				g.nodes = append([]*rpcTensor{cpy}, g.nodes...)
				g.more = append(g.more, src, dst)
				f.muts = append(f.muts, "a writer into "+part.name+" beside the op")
			} else {
				before = []*rpcTensor{cpy, src, dst}
				f.muts = append(f.muts, "a writer into "+part.name+" in a graph before")
			}
		case 12: // a tensor without buffer or data
			tn := pick()
			tn.buffer, tn.data = 0, 0
			f.muts = append(f.muts, tn.name+" without buffer or data")
		case 11: // a recompute, after freeing the buffer or not
			recompute, freeFirst = true, rng.Intn(2) == 0
			f.muts = append(f.muts, fmt.Sprintf("recompute (buffer freed first: %v)", freeFirst))
		}
	}
	if !fitsBuffers(g, tensors) {
		return "skipped"
	}
	if testing.Verbose() {
		t.Logf("%s", f.desc())
	}
	if before != nil {
		if err := g.sendNodes(r, before[:1], before[1:]...); err != nil || !r.alive() {
			return "refused"
		}
	}
	err = g.compute(r)
	ranIt := err == nil && r.alive()
	if f.onlyData {
		valid := fuzzRowsValid(g)
		if ranIt != valid {
			t.Fatalf("%s: the row index fits: %v, but the graph ran: %v\n%s", f.desc(), valid, ranIt, tailString(s.output(), 2000))
		}
	}
	if ranIt && recompute {
		if freeFirst {
			if _, err := r.call(rpcCmdFreeBuffer, binary.LittleEndian.AppendUint64(nil, g.buf), 0); err != nil {
				return "refused"
			}
		}
		r.send(rpcCmdGraphRecompute, []byte{0, 0, 0, 0})
		r.alive()
	}
	if ranIt {
		return "ran"
	}
	return "refused"
}

// tryDialRPC is dialRPC with an error instead of a test failure.
func tryDialRPC(addr string) (*rpcConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(60 * time.Second))
	r := &rpcConn{c: c}
	rsp, err := r.call(rpcCmdHello, make([]byte, rpcConnCapsSize), 4+rpcConnCapsSize)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("HELLO: %v", err)
	}
	r.major, r.minor = rsp[0], rsp[1]
	return r, nil
}

// rowsPrefix: the row index's first i entries.
func rowsPrefix(g *bitcosGraph, i int) []int32 {
	out := make([]int32, i)
	for k := range out {
		out[k] = g.rowsAt(k)
	}
	return out
}

// fuzzRowsValid is ggml_bitcos_check_rows on g's data.
func fuzzRowsValid(g *bitcosGraph) bool {
	nrows := len(g.rows)/4 - 1
	if g.rowsAt(0) != 0 {
		return false
	}
	for r := 0; r < nrows; r++ {
		nnz := 0
		for _, b := range g.bitmap[r*32 : r*32+32] {
			nnz += bits.OnesCount8(b)
		}
		if int64(g.rowsAt(r+1))-int64(g.rowsAt(r)) != int64((nnz+7)/8) || int64(g.rowsAt(r+1))+8 > int64(len(g.signs)) {
			return false
		}
	}
	return true
}

// fitsBuffers: every tensor with a buffer lies inside it (ggml_nbytes), so
// that a refusal is the BITCOS check's and not deserialize_tensor's.
func fitsBuffers(g *bitcosGraph, ts []*rpcTensor) bool {
	for _, tn := range ts {
		base := map[uint64]uint64{g.buf: g.base, g.side: g.sideBase}[tn.buffer]
		if tn.buffer == 0 {
			continue
		}
		n := rpcNBytes(tn)
		if tn.data < base || tn.data+n > base+bufSize {
			return false
		}
	}
	return true
}

// rpcNBytes is ggml_nbytes for the types the fuzzer uses.
func rpcNBytes(tn *rpcTensor) uint64 {
	for _, v := range tn.ne {
		if v == 0 {
			return 0
		}
	}
	size, blck := map[uint32]uint64{ggmlTypeF32: 4, ggmlTypeF16: 2, ggmlTypeI8: 1, ggmlTypeI32: 4, ggmlTypeBITCOS: 16}[tn.typ],
		map[uint32]uint64{ggmlTypeBITCOS: 128}[tn.typ]
	var n uint64
	if blck == 0 {
		n = size
		for i := 0; i < 4; i++ {
			n += uint64(tn.ne[i]-1) * uint64(tn.nb[i])
		}
	} else {
		n = uint64(tn.ne[0]) * uint64(tn.nb[0]) / blck
		for i := 1; i < 4; i++ {
			n += uint64(tn.ne[i]-1) * uint64(tn.nb[i])
		}
	}
	return n
}
