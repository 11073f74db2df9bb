package compat

import (
	"encoding/binary"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/gguf-bitcos/gguf-bitcos/internal/llamatest"
)

// Issue 39's seven ways past the RPC server's BITCOS checks, each as a
// hostile client of the wire protocol does it, on a server in each CPU
// layout (the rule's default, GGML_BITCOS_LAYOUT=tq2_0 and =native) and, with
// $GGUF_BITCOS_LLAMA_ASAN_BIN (a build of the series with
// -DGGML_SANITIZE_ADDRESS=ON), on that build too, whose log must then hold no
// AddressSanitizer report. Each graph that would read through unchecked
// parts must be refused (the server closes the connection and logs why);
// one that runs must give values computed from checked parts only; the
// server must outlive every case.

const (
	rpcCmdFreeBuffer = 4
	rpcCmdSupportsOp = 18

	ggmlTypeF32Size = 4

	ggmlOpMulMatID     = 30
	ggmlOpGetRows      = 40
	ggmlOpConv2D       = 56
	ggmlOpOptStepAdamW = 98
	ggmlOpOptStepSGD   = 99

	ggmlTensorFlagParam = 4

	offScratch  = 0    // a hostile client's own data, in bitcosGraph's side buffer: a
	offScratch2 = 4096 // SET_TENSOR there leaves what the server checked in the other alone
)

// hostileLayouts: the server's CPU layouts, by the environment that makes each.
var hostileLayouts = []struct {
	name string
	env  []string
}{{"default", nil}, {"tq2_0", []string{"GGML_BITCOS_LAYOUT=tq2_0"}}, {"native", []string{"GGML_BITCOS_LAYOUT=native"}}}

// hostileServer starts a server of the release build, or of the ASan
// build ($GGUF_BITCOS_LLAMA_ASAN_BIN) when asan, whose log must then hold no
// sanitizer report at the end of the test.
func hostileServer(t *testing.T, asan bool, env []string) *rpcServer {
	t.Helper()
	var s *rpcServer
	if !asan {
		s = startRPCServer(t, env...)
	} else {
		s = startRPCServerBin(t, llamatest.ToolIn(t, "GGUF_BITCOS_LLAMA_ASAN_BIN", "a bin folder of the series built with -DGGML_SANITIZE_ADDRESS=ON", "ggml-rpc-server"), env...)
		t.Cleanup(func() { noSanitizerReport(t, s) })
	}
	t.Cleanup(func() { serverAnswers(t, s) })
	return s
}

// serverAnswers fails the test unless s takes a new connection and answers
// HELLO within 5 s: a server that is crashing (ggml_abort's backtrace runs
// gdb on it for a while) has not exited yet, but answers nobody.
func serverAnswers(t *testing.T, s *rpcServer) {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
	if err == nil {
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		r := &rpcConn{c: c}
		_, err = r.call(rpcCmdHello, make([]byte, rpcConnCapsSize), 4+rpcConnCapsSize)
	}
	if err != nil {
		t.Errorf("the server no longer answers (%v):\n%s", err, tailString(s.output(), 3000))
	}
}

// noSanitizerReport fails the test when s's log holds a sanitizer's report.
func noSanitizerReport(t *testing.T, s *rpcServer) {
	t.Helper()
	for _, w := range []string{"ERROR: AddressSanitizer", "runtime error:", "ERROR: LeakSanitizer"} {
		if i := strings.Index(s.output(), w); i >= 0 {
			t.Errorf("sanitizer report in the server's log:\n%s", tailString(s.output()[i:], 4000))
		}
	}
}

// refused: the graph just sent was not run (the server closed the
// connection), the log says why, and the server is still up.
func refused(t *testing.T, s *rpcServer, r *rpcConn, sendErr error, before int, why string) {
	t.Helper()
	if sendErr == nil && r.alive() {
		t.Fatalf("the server ran the graph\n%s", tailString(s.output()[before:], 2000))
	}
	waitLog(t, s, before, why)
	if s.exited() {
		t.Fatal("the server exited")
	}
}

// ran: the graph just sent ran (the connection is still open).
func ran(t *testing.T, s *rpcServer, r *rpcConn, sendErr error, before int) {
	t.Helper()
	if sendErr != nil || !r.alive() {
		t.Fatalf("the graph was refused (%v):\n%s", sendErr, tailString(s.output()[before:], 2000))
	}
}

// getRows makes g's graph one GET_ROWS of the weight at the given row
// numbers: the index (I32 [len(rows)]) at offScratch, the result (F32 [256,
// len(rows)] at offDst).
func (g *bitcosGraph) getRows(t *testing.T, r *rpcConn, rows ...int32) {
	t.Helper()
	idx := &rpcTensor{id: 20, typ: ggmlTypeI32, ne: [4]uint32{uint32(len(rows)), 1, 1, 1}, buffer: g.side, data: g.sideBase + offScratch, name: "idx"}
	idx.nb = contiguousNB(idx.typ, idx.ne)
	b := make([]byte, 4*len(rows))
	for i, v := range rows {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	g.set(t, r, idx, b)
	g.tdst.op, g.tdst.ne = ggmlOpGetRows, [4]uint32{256, uint32(len(rows)), 1, 1}
	g.tdst.nb = contiguousNB(ggmlTypeF32, g.tdst.ne)
	g.tdst.src[1] = idx.id
	g.more = []*rpcTensor{idx}
	g.nodes = []*rpcTensor{&g.tdst}
}

// floats reads n floats of the result.
func (g *bitcosGraph) floats(t *testing.T, r *rpcConn, n int) []float32 {
	t.Helper()
	in := append(g.tdst.bytes(), make([]byte, 16)...)
	binary.LittleEndian.PutUint64(in[rpcTensorSize+8:], uint64(4*n))
	rsp, err := r.call(rpcCmdGetTensor, in, 4*n)
	if err != nil {
		t.Fatalf("GET_TENSOR: %v", err)
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(rsp[4*i:]))
	}
	return out
}

// checkRows: the result holds the weight's rows, bit for bit (a row number
// outside the weight: zeros).
func (g *bitcosGraph) checkRows(t *testing.T, r *rpcConn, rows ...int32) {
	t.Helper()
	got := g.floats(t, r, 256*len(rows))
	for i, row := range rows {
		for j := 0; j < 256; j++ {
			want := float32(0)
			if row >= 0 && int(row) < len(g.vals) {
				want = g.vals[row][j]
			}
			if math.Float32bits(got[256*i+j]) != math.Float32bits(want) {
				t.Fatalf("GET_ROWS row %d (weight row %d), column %d: %g, want %g", i, row, j, got[256*i+j], want)
			}
		}
	}
}

// rewriteRows is a CPY node that writes bad (I32 values set at offScratch2)
// into the row index: the tensors it names go into more.
func (g *bitcosGraph) rewriteRows(t *testing.T, r *rpcConn, bad ...int32) (cpy *rpcTensor, more []*rpcTensor) {
	t.Helper()
	rows := append([]int32(nil), bad...)
	for len(rows) < int(g.tr.ne[0]) {
		rows = append(rows, g.rowsAt(len(rows)))
	}
	b := make([]byte, 4*len(rows))
	for i, v := range rows {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
	}
	src := &rpcTensor{id: 30, typ: ggmlTypeI32, ne: g.tr.ne, nb: g.tr.nb, buffer: g.side, data: g.sideBase + offScratch2, name: "evil"}
	g.set(t, r, src, b)
	cpy = &rpcTensor{id: 31, typ: ggmlTypeI32, op: ggmlOpCpy, ne: g.tr.ne, nb: g.tr.nb, buffer: g.buf, data: g.tr.data, name: "cpy"}
	cpy.src[0], cpy.src[1] = src.id, g.tr.id
	return cpy, []*rpcTensor{src}
}

// sendNodes sends a graph of nodes (with g's tensors and more).
func (g *bitcosGraph) sendNodes(r *rpcConn, nodes []*rpcTensor, more ...*rpcTensor) error {
	saveN, saveM := g.nodes, g.more
	g.nodes, g.more = nodes, append(append([]*rpcTensor(nil), g.more...), more...)
	defer func() { g.nodes, g.more = saveN, saveM }()
	return g.compute(r)
}

// refusal is a case whose graph (a weight [256, m, e], seed), changed by
// change once loaded, must be refused with why in the server's log.
func refusal(seed int64, m, e int, why string, change func(t *testing.T, r *rpcConn, g *bitcosGraph)) func(t *testing.T, s *rpcServer) {
	return func(t *testing.T, s *rpcServer) {
		r := dialRPC(t, s.addr)
		g := newBitcosGraphShape(seed, m, e)
		g.load(t, r)
		change(t, r, g)
		before := len(s.output())
		refused(t, s, r, g.compute(r), before, why)
	}
}

type hostileCase struct {
	name string
	run  func(t *testing.T, s *rpcServer)
}

func TestRPCHostileBITCOS(t *testing.T) {
	llamaBin(t, "ggml-rpc-server")
	for _, build := range []string{"release", "asan"} {
		for _, c := range hostileCases() {
			for _, l := range hostileLayouts {
				// a server per case: a crash is that case's alone
				t.Run(build+"/"+c.name+"/"+l.name, func(t *testing.T) { c.run(t, hostileServer(t, build == "asan", l.env)) })
			}
		}
	}
}

func hostileCases() []hostileCase {
	var cases []hostileCase
	add := func(name string, run func(t *testing.T, s *rpcServer)) {
		cases = append(cases, hostileCase{name, run})
	}

	// 1. A graph with no BITCOS op writes into a checked weight's row
	// index: the weight is checked again at its next use.
	for _, bad := range []int32{0x40000000, -32} {
		for _, first := range []string{"get_rows", "mul_mat"} {
			add("1 rewritten index/"+first+"/"+hex32(bad), func(t *testing.T, s *rpcServer) {
				r := dialRPC(t, s.addr)
				g := newBitcosGraph(3)
				g.load(t, r)
				use := func() error {
					if first == "get_rows" {
						g.getRows(t, r, 1, 3)
					}
					return g.compute(r)
				}
				before := len(s.output())
				ran(t, s, r, use(), before)
				if first == "get_rows" {
					g.checkRows(t, r, 1, 3)
				}
				cpy, more := g.rewriteRows(t, r, 0, bad)
				before = len(s.output())
				err := g.sendNodes(r, []*rpcTensor{cpy}, more...)
				ran(t, s, r, err, before)
				before = len(s.output())
				refused(t, s, r, use(), before, "row index")
			})
		}
	}
	// ... and in the tq2_0 layout before the weight's first MUL_MAT, which
	// would copy the rewritten parts into CPU_BITCOS
	add("1 rewritten index before the first mul_mat", func(t *testing.T, s *rpcServer) {
		r := dialRPC(t, s.addr)
		g := newBitcosGraph(4)
		g.load(t, r)
		mm := g.tdst
		g.getRows(t, r, 0)
		before := len(s.output())
		ran(t, s, r, g.compute(r), before)
		cpy, more := g.rewriteRows(t, r, 0, 0x40000000)
		before = len(s.output())
		ran(t, s, r, g.sendNodes(r, []*rpcTensor{cpy}, more...), before)
		g.tdst, g.more = mm, nil
		before = len(s.output())
		refused(t, s, r, g.compute(r), before, "row index")
	})

	// 2. A writer whose view_src lies (another buffer, or none): refused
	// before anything is checked, alone or beside the BITCOS op.
	for _, other := range []string{"another buffer", "no buffer"} {
		for _, beside := range []bool{true, false} {
			name := "2 view_src in " + other
			if !beside {
				name += ", alone"
			}
			add(name, func(t *testing.T, s *rpcServer) {
				r := dialRPC(t, s.addr)
				g := newBitcosGraph(5)
				g.load(t, r)
				o := newBitcosGraph(6)
				o.load(t, r) // a second buffer
				src := &o.tx
				if other == "no buffer" {
					src = &rpcTensor{id: 40, typ: ggmlTypeF32, ne: [4]uint32{64, 1, 1, 1}, name: "nowhere"}
					src.nb = contiguousNB(src.typ, src.ne)
				} else {
					src = &rpcTensor{id: 40, typ: ggmlTypeF32, ne: o.tx.ne, nb: o.tx.nb, buffer: o.buf, data: o.tx.data, name: "other"}
				}
				cpy, more := g.rewriteRows(t, r, 0, 0x40000000)
				cpy.viewSrc, cpy.viewOffs = src.id, 0
				nodes := []*rpcTensor{cpy}
				if beside {
					nodes = append(nodes, &g.tdst)
				}
				before := len(s.output())
				refused(t, s, r, g.sendNodes(r, nodes, append(more, src)...), before, "does not lie where its source")
			})
		}
	}

	// 3. Ops that write into a source: OPT_STEP_SGD on parameters lying on
	// the row index, OPT_STEP_ADAMW with its first moment there; in the
	// graph of the BITCOS op (refused) or in a graph of their own (the
	// weight is checked again at its next use).
	for _, op := range []uint32{ggmlOpOptStepSGD, ggmlOpOptStepAdamW} {
		for _, beside := range []bool{true, false} {
			name := map[uint32]string{ggmlOpOptStepSGD: "sgd", ggmlOpOptStepAdamW: "adamw"}[op]
			if !beside {
				name += ", alone"
			}
			add("3 in-place "+name, func(t *testing.T, s *rpcServer) {
				r := dialRPC(t, s.addr)
				g := newBitcosGraph(7)
				g.load(t, r)
				before := len(s.output())
				ran(t, s, r, g.compute(r), before)
				n := g.tr.ne[0]
				f32 := func(id uint64, off uint64, name string, vals ...float32) *rpcTensor {
					tn := &rpcTensor{id: id, typ: ggmlTypeF32, ne: [4]uint32{uint32(len(vals)), 1, 1, 1}, buffer: g.side, data: g.sideBase + off, name: name}
					tn.nb = contiguousNB(tn.typ, tn.ne)
					b := make([]byte, 4*len(vals))
					for i, v := range vals {
						binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
					}
					g.set(t, r, tn, b)
					return tn
				}
				// the parameters (or ADAMW's m) are the row index's bytes
				onRows := &rpcTensor{id: 50, typ: ggmlTypeF32, ne: [4]uint32{n, 1, 1, 1}, buffer: g.buf, data: g.tr.data, flags: ggmlTensorFlagParam, name: "on-rows"}
				onRows.nb = contiguousNB(onRows.typ, onRows.ne)
				grad := make([]float32, n)
				for i := range grad {
					grad[i] = -1e30
				}
				tg := f32(51, offScratch, "grad", grad...)
				node := &rpcTensor{id: 52, typ: ggmlTypeF32, op: op, ne: onRows.ne, nb: onRows.nb, buffer: g.side, data: g.sideBase + offScratch2, name: "step"}
				more := []*rpcTensor{onRows, tg}
				if op == ggmlOpOptStepSGD {
					params := f32(53, offScratch+512, "sgd-params", 1, 0)
					node.src[0], node.src[1], node.src[2] = onRows.id, tg.id, params.id
					more = append(more, params)
				} else {
					params := f32(53, offScratch+512, "adamw-params", 1, 0.9, 0.999, 1e-8, 0, 1, 1)
					zeros := make([]float32, n)
					a := f32(54, offScratch+768, "param", zeros...)
					a.flags = ggmlTensorFlagParam
					v := f32(55, offScratch+896, "v", zeros...)
					node.src[0], node.src[1], node.src[2], node.src[3], node.src[4] = a.id, tg.id, onRows.id, v.id, params.id
					node.data = a.data
					more = append(more, params, a, v)
				}
				nodes := []*rpcTensor{node}
				if beside {
					nodes = append(nodes, &g.tdst)
					before = len(s.output())
					refused(t, s, r, g.sendNodes(r, nodes, more...), before, "writes into a part")
					return
				}
				before = len(s.output())
				ran(t, s, r, g.sendNodes(r, nodes, more...), before)
				before = len(s.output())
				err := g.compute(r)
				if err == nil && r.alive() {
					// the step left the index valid (it may not have moved
					// a value): then the product is the weight's
					checkDots(t, g.result(t, r), g.want, g.tol)
					return
				}
				refused(t, s, r, err, before, "row index")
			})
		}
	}

	// 4. Operands that do not fit the weight.
	add("4 mul_mat broadcast 3 over 2", refusal(8, 4, 2, "MUL_MAT shapes that do not fit", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.tx.ne = [4]uint32{256, 1, 3, 1}
		g.tx.nb = contiguousNB(ggmlTypeF32, g.tx.ne)
		g.tdst.ne = [4]uint32{4, 1, 3, 1}
		g.tdst.nb = contiguousNB(ggmlTypeF32, g.tdst.ne)
		g.tdst.data = g.base + 6144 // free bytes of the buffer
	}))
	add("4 get_rows index [1,2] over one matrix", refusal(9, 4, 1, "GET_ROWS shapes that do not fit", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.getRows(t, r, 1, 2)
		g.more[0].ne = [4]uint32{1, 2, 1, 1}
		g.more[0].nb = contiguousNB(ggmlTypeI32, g.more[0].ne)
		g.tdst.ne = [4]uint32{256, 1, 2, 1}
		g.tdst.nb = contiguousNB(ggmlTypeF32, g.tdst.ne)
	}))
	add("4 get_rows index value outside", refusal(10, 4, 1, "a row outside the weight", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.getRows(t, r, 1, 4)
	}))
	add("4 get_rows computed index outside", func(t *testing.T, s *rpcServer) {
		// the index is a CPY's result: its values are only known when the
		// graph runs, and the kernel gives a row of zeros for one outside
		r := dialRPC(t, s.addr)
		g := newBitcosGraph(11)
		g.load(t, r)
		g.getRows(t, r, 0, 0)
		idx := g.more[0]
		src := &rpcTensor{id: 60, typ: ggmlTypeI32, ne: idx.ne, nb: idx.nb, buffer: g.side, data: g.sideBase + offScratch2, name: "idx-src"}
		g.set(t, r, src, []byte{2, 0, 0, 0, 9, 0, 0, 0})
		cpy := &rpcTensor{id: 61, typ: ggmlTypeI32, op: ggmlOpCpy, ne: idx.ne, nb: idx.nb, buffer: g.side, data: idx.data, name: "idx-cpy"}
		cpy.src[0], cpy.src[1] = src.id, idx.id
		g.tdst.src[1] = cpy.id
		before := len(s.output())
		ran(t, s, r, g.sendNodes(r, []*rpcTensor{cpy, &g.tdst}, src, cpy), before)
		g.checkRows(t, r, 2, 9)
	})
	for _, id := range []int32{1, 5, -1} {
		add("4 mul_mat_id expert "+hex32(id), func(t *testing.T, s *rpcServer) {
			r := dialRPC(t, s.addr)
			g := newBitcosGraphShape(12, 4, 2)
			g.load(t, r)
			ids := &rpcTensor{id: 70, typ: ggmlTypeI32, ne: [4]uint32{1, 1, 1, 1}, buffer: g.side, data: g.sideBase + offScratch, name: "ids"}
			ids.nb = contiguousNB(ids.typ, ids.ne)
			g.set(t, r, ids, binary.LittleEndian.AppendUint32(nil, uint32(id)))
			g.tx.ne = [4]uint32{256, 1, 1, 1}
			g.tdst.op, g.tdst.ne = ggmlOpMulMatID, [4]uint32{4, 1, 1, 1}
			g.tdst.nb = contiguousNB(ggmlTypeF32, g.tdst.ne)
			g.tdst.src[2] = ids.id
			g.more = []*rpcTensor{ids}
			before := len(s.output())
			err := g.compute(r)
			if id < 0 || id >= 2 {
				refused(t, s, r, err, before, "expert id")
				return
			}
			ran(t, s, r, err, before)
			checkDots(t, g.floats(t, r, 4), g.want[4*id:4*id+4], g.tol[4*id:4*id+4])
		})
	}
	add("4 mul_mat_id computed expert outside", func(t *testing.T, s *rpcServer) {
		// ids from a CPY: the CPU skips the slot (upstream would count it
		// out of bounds); the result keeps what it held
		r := dialRPC(t, s.addr)
		g := newBitcosGraphShape(13, 4, 2)
		g.load(t, r)
		ids := &rpcTensor{id: 70, typ: ggmlTypeI32, ne: [4]uint32{1, 1, 1, 1}, buffer: g.side, data: g.sideBase + offScratch, name: "ids"}
		ids.nb = contiguousNB(ids.typ, ids.ne)
		src := &rpcTensor{id: 71, typ: ggmlTypeI32, ne: ids.ne, nb: ids.nb, buffer: g.side, data: g.sideBase + offScratch2, name: "ids-src"}
		g.set(t, r, src, binary.LittleEndian.AppendUint32(nil, 1<<30))
		cpy := &rpcTensor{id: 72, typ: ggmlTypeI32, op: ggmlOpCpy, ne: ids.ne, nb: ids.nb, buffer: g.side, data: ids.data, name: "ids-cpy"}
		cpy.src[0], cpy.src[1] = src.id, ids.id
		g.tdst.op = ggmlOpMulMatID
		g.tdst.src[2] = cpy.id
		held := make([]byte, 16)
		for i := range held {
			held[i] = 0x7f
		}
		g.set(t, r, &g.tdst, held)
		before := len(s.output())
		ran(t, s, r, g.sendNodes(r, []*rpcTensor{cpy, &g.tdst}, ids, src, cpy), before)
		for i, v := range g.floats(t, r, 4) {
			if math.Float32bits(v) != 0x7f7f7f7f {
				t.Fatalf("result %d: %#x, want the bytes it held (0x7f7f7f7f)", i, math.Float32bits(v))
			}
		}
	})

	// 5. Empty dimensions.
	for _, c := range []struct {
		name string
		f    func(g *bitcosGraph)
	}{
		{"row index [5,1,0,1]", func(g *bitcosGraph) { g.tr.ne = [4]uint32{5, 1, 0, 1} }},
		{"scales [1,4,0,1] at the buffer's end", func(g *bitcosGraph) {
			g.td.ne, g.td.data = [4]uint32{1, 4, 0, 1}, g.base+bufSize
		}},
		{"weight [256,4,0,1]", func(g *bitcosGraph) { emptyWeight(g) }},
	} {
		add("5 empty "+c.name, refusal(14, 4, 1, "companions", func(t *testing.T, r *rpcConn, g *bitcosGraph) { c.f(g) }))
	}
	add("5 empty weight in get_rows", refusal(15, 4, 1, "companions", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.getRows(t, r, 0)
		emptyWeight(g)
	}))

	// 6. A missing src[1]: in a graph, and in RPC_CMD_SUPPORTS_OP (for a
	// BITCOS weight, and for the stock ops whose supports_op reads src[1]).
	for _, op := range []uint32{ggmlOpMulMat, ggmlOpGetRows} {
		add("6 no src[1] in "+map[uint32]string{ggmlOpMulMat: "mul_mat", ggmlOpGetRows: "get_rows"}[op],
			refusal(16, 4, 1, "a source is missing", func(t *testing.T, r *rpcConn, g *bitcosGraph) { g.tdst.op, g.tdst.src[1] = op, 0 }))
	}
	// ... or one without data (create_node takes a tensor with neither
	// buffer nor data), or ids whose strides would read past them
	add("6 get_rows index without data", refusal(16, 4, 1, "without data", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.getRows(t, r, 1)
		g.more[0].buffer, g.more[0].data = 0, 0
	}))
	add("6 get_rows result without data", refusal(16, 4, 1, "without data", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.getRows(t, r, 1)
		g.tdst.buffer, g.tdst.data = 0, 0
	}))
	add("6 mul_mat activations without data", refusal(16, 4, 1, "without data", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		g.tx.buffer, g.tx.data = 0, 0
	}))
	add("6 mul_mat_id ids of one-byte stride", refusal(16, 4, 2, "strides", func(t *testing.T, r *rpcConn, g *bitcosGraph) {
		ids := &rpcTensor{id: 70, typ: ggmlTypeI32, ne: [4]uint32{1, 1, 1, 1}, nb: [4]uint32{1, 4, 4, 4}, buffer: g.side, data: g.sideBase + offScratch, name: "ids"}
		g.set(t, r, ids, []byte{1, 0, 0, 0})
		g.tdst.op, g.tdst.src[2] = ggmlOpMulMatID, ids.id
		g.more = []*rpcTensor{ids}
	}))
	add("6 supports_op without src[1]", func(t *testing.T, s *rpcServer) {
		r := dialRPC(t, s.addr)
		g := newBitcosGraph(17)
		f32w := rpcTensor{id: 1, typ: ggmlTypeF32, ne: [4]uint32{256, 4, 1, 1}, name: "f32"}
		f32w.nb = contiguousNB(f32w.typ, f32w.ne)
		for _, c := range []struct {
			name string
			op   uint32
			src0 rpcTensor
		}{
			{"bitcos mul_mat", ggmlOpMulMat, g.w}, {"bitcos get_rows", ggmlOpGetRows, g.w},
			{"bitcos mul_mat_id", ggmlOpMulMatID, g.w}, {"f32 mul_mat", ggmlOpMulMat, f32w}, {"conv_2d", ggmlOpConv2D, f32w},
		} {
			op := g.tdst
			op.op = c.op
			srcs := [ggmlMaxSrc]rpcTensor{}
			srcs[0] = c.src0
			if c.src0.typ == ggmlTypeBITCOS {
				srcs[bitcosSrcSigns], srcs[bitcosSrcRows], srcs[bitcosSrcScales] = g.ts, g.tr, g.td
			}
			for i := range op.src {
				op.src[i] = srcs[i].id
			}
			in := binary.LittleEndian.AppendUint32(nil, 0)
			in = append(in, op.bytes()...)
			for i := range srcs {
				in = append(in, srcs[i].bytes()...)
			}
			rsp, err := r.call(rpcCmdSupportsOp, in, 1)
			if err != nil {
				t.Fatalf("%s: SUPPORTS_OP: %v\n%s", c.name, err, tailString(s.output(), 2000))
			}
			if rsp[0] != 0 {
				t.Fatalf("%s without src[1]: supported", c.name)
			}
		}
		if !r.alive() || s.exited() {
			t.Fatal("the server is gone")
		}
	})

	// 7. GRAPH_RECOMPUTE after FREE_BUFFER of a buffer the stored graph
	// uses: refused; of another buffer: the graph runs again.
	for _, which := range []string{"its buffer", "another buffer"} {
		add("7 recompute after freeing "+which, func(t *testing.T, s *rpcServer) {
			r := dialRPC(t, s.addr)
			o := newBitcosGraph(18)
			o.load(t, r)
			g := newBitcosGraph(19)
			g.load(t, r)
			before := len(s.output())
			ran(t, s, r, g.compute(r), before)
			free := g.buf
			if which == "another buffer" {
				free = o.buf
			}
			if _, err := r.call(rpcCmdFreeBuffer, binary.LittleEndian.AppendUint64(nil, free), 0); err != nil {
				t.Fatalf("FREE_BUFFER: %v", err)
			}
			err := r.send(rpcCmdGraphRecompute, []byte{0, 0, 0, 0})
			if which == "another buffer" {
				ran(t, s, r, err, before)
				checkDots(t, g.result(t, r), g.want, g.tol)
				return
			}
			if err == nil && r.alive() {
				t.Fatal("a stored graph ran on a freed buffer")
			}
			if s.exited() {
				t.Fatal("the server exited")
			}
		})
	}
	return cases
}

// emptyWeight: a weight of zero rows, whose companions would fit it
// without the empty-dimension rule (a one-entry index, one f32 scale).
func emptyWeight(g *bitcosGraph) {
	g.w.ne = [4]uint32{256, 4, 0, 1}
	g.tr.ne = [4]uint32{1, 1, 1, 1}
	g.td.typ, g.td.ne = ggmlTypeF32, [4]uint32{1, 1, 1, 1}
	g.td.nb = contiguousNB(g.td.typ, g.td.ne)
}

func hex32(v int32) string {
	if v < 0 {
		return "-" + hex32(-v)
	}
	const digits = "0123456789abcdef"
	s := ""
	for u := uint32(v); ; u >>= 4 {
		s = string(digits[u&15]) + s
		if u < 16 {
			return "0x" + s
		}
	}
}

// checkDots: a product of the weight with x, within the bound of Q8_K's
// rounding of the activations (bitcosGraph.tol).
func checkDots(t *testing.T, got, want []float32, tol []float64) {
	t.Helper()
	for i := range want {
		if d := math.Abs(float64(got[i] - want[i])); d > tol[i] {
			t.Fatalf("row %d: %g, want %g (all: %v vs %v)", i, got[i], want[i], got, want)
		}
	}
}
