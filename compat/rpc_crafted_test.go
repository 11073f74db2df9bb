package compat

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand"
	"net"
	"testing"
	"time"

	"github.com/x448/float16"
)

// A client of ggml-rpc's wire protocol (ggml/src/ggml-rpc/ggml-rpc.cpp at
// the pin, protocol 5.1 with patch 0014), enough to send a server crafted
// BITCOS graphs: every struct is packed, little-endian.
const (
	rpcCmdAllocBuffer    = 0
	rpcCmdGetAlignment   = 1
	rpcCmdBufferGetBase  = 3
	rpcCmdSetTensor      = 6
	rpcCmdGetTensor      = 8
	rpcCmdGraphCompute   = 10
	rpcCmdHello          = 14
	rpcCmdGraphRecompute = 16

	rpcConnCapsSize = 24
	rpcTensorSize   = 296
	ggmlMaxSrc      = 10
	bitcosSrcSigns  = ggmlMaxSrc - 3 // ggml-bitcos.h's slots
	bitcosSrcRows   = ggmlMaxSrc - 2
	bitcosSrcScales = ggmlMaxSrc - 1

	ggmlTypeF32    = 0
	ggmlTypeF16    = 1
	ggmlTypeI8     = 24
	ggmlTypeI32    = 26
	ggmlTypeBITCOS = 96

	ggmlOpMulMat = 29
	ggmlOpScale  = 32
	ggmlOpCpy    = 34

	ggmlTensorFlagCompute = 16 // a node the backend computes
)

// rpcTensor is ggml-rpc's rpc_tensor.
type rpcTensor struct {
	id, buffer, data  uint64
	typ, op, flags    uint32
	ne, nb            [4]uint32
	opParams          [16]int32
	src               [ggmlMaxSrc]uint64
	viewSrc, viewOffs uint64
	name              string
}

func (t *rpcTensor) bytes() []byte {
	b := make([]byte, rpcTensorSize)
	le := binary.LittleEndian
	le.PutUint64(b[0:], t.id)
	le.PutUint32(b[8:], t.typ)
	le.PutUint64(b[12:], t.buffer)
	for i := 0; i < 4; i++ {
		le.PutUint32(b[20+4*i:], t.ne[i])
		le.PutUint32(b[36+4*i:], t.nb[i])
	}
	le.PutUint32(b[52:], t.op)
	for i, p := range t.opParams {
		le.PutUint32(b[56+4*i:], uint32(p))
	}
	le.PutUint32(b[120:], t.flags)
	for i, s := range t.src {
		le.PutUint64(b[124+8*i:], s)
	}
	le.PutUint64(b[204:], t.viewSrc)
	le.PutUint64(b[212:], t.viewOffs)
	le.PutUint64(b[220:], t.data)
	copy(b[228:228+63], t.name)
	return b
}

type rpcConn struct {
	c     net.Conn
	major byte
	minor byte
}

func (r *rpcConn) send(cmd byte, input []byte) error {
	msg := make([]byte, 9, 9+len(input))
	msg[0] = cmd
	binary.LittleEndian.PutUint64(msg[1:], uint64(len(input)))
	_, err := r.c.Write(append(msg, input...))
	return err
}

func (r *rpcConn) recv(n int) ([]byte, error) {
	var size [8]byte
	if _, err := io.ReadFull(r.c, size[:]); err != nil {
		return nil, err
	}
	if got := binary.LittleEndian.Uint64(size[:]); got != uint64(n) {
		return nil, fmt.Errorf("response of %d bytes, want %d", got, n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r.c, b)
	return b, err
}

func (r *rpcConn) call(cmd byte, input []byte, n int) ([]byte, error) {
	if err := r.send(cmd, input); err != nil {
		return nil, err
	}
	return r.recv(n)
}

func dialRPC(t *testing.T, addr string) *rpcConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(60 * time.Second))
	r := &rpcConn{c: c}
	rsp, err := r.call(rpcCmdHello, make([]byte, rpcConnCapsSize), 4+rpcConnCapsSize)
	if err != nil {
		t.Fatalf("HELLO: %v", err)
	}
	r.major, r.minor = rsp[0], rsp[1]
	return r
}

// alive: the server still answers on this connection (it closes one whose
// request it refused).
func (r *rpcConn) alive() bool {
	_, err := r.call(rpcCmdGetAlignment, []byte{0, 0, 0, 0}, 8)
	return err == nil
}

// bitcosGraph is one MUL_MAT of a BITCOS weight [256, 4] (fp16 scales) by a
// column, its tensors in one server buffer; cases change it before send.
type bitcosGraph struct {
	bitmap, signs, rows, scales, x []byte
	w, ts, tr, td, tx, tdst        rpcTensor
	nodes                          []*rpcTensor // computed, in order
	more                           []*rpcTensor // named by nodes, besides the above
	want                           []float32    // each row's dot product with x
	tol                            []float64    // each row's bound on |result - want|: Q8_K's rounding of x
	vals                           [][]float32  // each row's weights, (float) t * d as ggml decodes them
	base, buf                      uint64       // the server's buffer (load)
	sideBase, side                 uint64       // a second buffer, for a hostile client's own data (load)
}

const (
	offBitmap = 0
	offSigns  = 256
	offRows   = 1024
	offScales = 1152
	offX      = 2048
	offDst    = 4096
	bufSize   = 8192
)

func newBitcosGraph(seed int64) *bitcosGraph { return newBitcosGraphShape(seed, 4, 1) }

// newBitcosGraphShape: the same with a weight [256, m, e] (m*e <= 8 rows).
func newBitcosGraphShape(seed int64, m, e int) *bitcosGraph {
	return newBitcosGraphGroup(seed, m, e, 256)
}

// newBitcosGraphGroup: the same with fp16 scales per group weights (256, or
// 64 as a Q2_0 source has them: F16 [256/group, rows]).
func newBitcosGraphGroup(seed int64, m, e, group int) *bitcosGraph {
	const k = 256
	rng := rand.New(rand.NewSource(seed))
	nr := m * e
	ns := k / group // scales per row
	g := &bitcosGraph{bitmap: make([]byte, nr*k/8), scales: make([]byte, 2*nr*ns), x: make([]byte, 4*k)}
	xs := make([]float32, k)
	amax := 0.0
	for i := range xs {
		xs[i] = float32(rng.NormFloat64())
		amax = math.Max(amax, math.Abs(float64(xs[i])))
		binary.LittleEndian.PutUint32(g.x[4*i:], math.Float32bits(xs[i]))
	}
	var rows []int32
	for r := 0; r < nr; r++ {
		rows = append(rows, int32(len(g.signs)))
		ds := make([]float16.Float16, ns)
		for b := range ds {
			ds[b] = float16.Fromfloat32(0.5 + rng.Float32())
			binary.LittleEndian.PutUint16(g.scales[2*(r*ns+b):], uint16(ds[b]))
		}
		var stream []byte
		n, sum, tol := 0, float64(0), 1e-3
		vals := make([]float32, k)
		for j := 0; j < k; j++ {
			d := ds[j/group]
			if rng.Float64() < 0.4 { // 40% zeros
				continue
			}
			g.bitmap[r*k/8+j/8] |= 1 << (j % 8)
			if n%8 == 0 {
				stream = append(stream, 0)
			}
			v, t := float64(xs[j]), float32(1)
			if rng.Intn(2) == 1 {
				stream[n/8] |= 1 << (n % 8) // 1 = negative
				v, t = -v, -1
			}
			vals[j] = t * d.Float32()
			sum += v * float64(d.Float32())
			// Q8_K (Q8_0 for scales per 64) rounds each x to a step of
			// at most amax/127: at most half a step per non-zero weight,
			// times its scale (and float rounding)
			tol += float64(d.Float32()) * amax / 254
			n++
		}
		g.signs = append(g.signs, stream...)
		g.want = append(g.want, float32(sum))
		g.tol = append(g.tol, tol)
		g.vals = append(g.vals, vals)
	}
	rows = append(rows, int32(len(g.signs)))
	g.signs = append(g.signs, make([]byte, 8)...) // the 8 zero bytes at the end
	g.rows = make([]byte, 4*len(rows))
	for i, v := range rows {
		binary.LittleEndian.PutUint32(g.rows[4*i:], uint32(v))
	}
	g.w = rpcTensor{id: 1, typ: ggmlTypeBITCOS, ne: [4]uint32{k, uint32(m), uint32(e), 1}, nb: [4]uint32{16, 32, 32 * uint32(m), 32 * uint32(nr)}, name: "w"}
	g.ts = rpcTensor{id: 2, typ: ggmlTypeI8, ne: [4]uint32{uint32(len(g.signs)), 1, 1, 1}, name: "w.bitcos_signs"}
	g.tr = rpcTensor{id: 3, typ: ggmlTypeI32, ne: [4]uint32{uint32(nr) + 1, 1, 1, 1}, name: "w.bitcos_rows"}
	g.td = rpcTensor{id: 4, typ: ggmlTypeF16, ne: [4]uint32{uint32(ns), uint32(nr), 1, 1}, name: "w.bitcos_scales"}
	g.tx = rpcTensor{id: 5, typ: ggmlTypeF32, ne: [4]uint32{k, 1, 1, 1}, name: "x"}
	g.tdst = rpcTensor{id: 6, typ: ggmlTypeF32, op: ggmlOpMulMat, ne: [4]uint32{uint32(m), 1, 1, 1}, name: "y"}
	for _, t := range []*rpcTensor{&g.ts, &g.tr, &g.td, &g.tx, &g.tdst} {
		t.nb = contiguousNB(t.typ, t.ne)
	}
	g.tdst.src[0], g.tdst.src[1] = g.w.id, g.tx.id
	g.tdst.src[bitcosSrcSigns], g.tdst.src[bitcosSrcRows], g.tdst.src[bitcosSrcScales] = g.ts.id, g.tr.id, g.td.id
	g.nodes = []*rpcTensor{&g.tdst}
	return g
}

func contiguousNB(typ uint32, ne [4]uint32) [4]uint32 {
	size := map[uint32]uint32{ggmlTypeF32: 4, ggmlTypeF16: 2, ggmlTypeI8: 1, ggmlTypeI32: 4}[typ]
	nb := [4]uint32{size}
	for i := 1; i < 4; i++ {
		nb[i] = nb[i-1] * ne[i-1]
	}
	return nb
}

func (g *bitcosGraph) setRows(rows ...int32) {
	for i, v := range rows {
		binary.LittleEndian.PutUint32(g.rows[4*i:], uint32(v))
	}
}

func (g *bitcosGraph) rowsAt(i int) int32 { return int32(binary.LittleEndian.Uint32(g.rows[4*i:])) }

// allocBuffer allocates a buffer of bufSize bytes: its id and base.
func allocBuffer(t *testing.T, r *rpcConn) (buf, base uint64) {
	t.Helper()
	req := make([]byte, 12)
	binary.LittleEndian.PutUint64(req[4:], bufSize)
	rsp, err := r.call(rpcCmdAllocBuffer, req, 16)
	if err != nil {
		t.Fatalf("ALLOC_BUFFER: %v", err)
	}
	buf = binary.LittleEndian.Uint64(rsp)
	rsp, err = r.call(rpcCmdBufferGetBase, rsp[:8], 8)
	if err != nil {
		t.Fatalf("BUFFER_GET_BASE: %v", err)
	}
	return buf, binary.LittleEndian.Uint64(rsp)
}

// load allocates the buffer, places every tensor in it and sets their data
// (and allocates the side buffer).
func (g *bitcosGraph) load(t *testing.T, r *rpcConn) {
	t.Helper()
	buf, base := allocBuffer(t, r)
	g.base, g.buf = base, buf
	g.side, g.sideBase = allocBuffer(t, r)
	for _, p := range []struct {
		t    *rpcTensor
		off  uint64
		data []byte
	}{
		{&g.w, offBitmap, g.bitmap}, {&g.ts, offSigns, g.signs}, {&g.tr, offRows, g.rows},
		{&g.td, offScales, g.scales}, {&g.tx, offX, g.x}, {&g.tdst, offDst, []byte{1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}},
	} {
		p.t.buffer, p.t.data = buf, base+p.off
		if p.data != nil {
			g.set(t, r, p.t, p.data)
		}
	}
}

func (g *bitcosGraph) set(t *testing.T, r *rpcConn, tn *rpcTensor, data []byte) {
	t.Helper()
	in := append(tn.bytes(), make([]byte, 8)...) // offset 0
	if err := r.send(rpcCmdSetTensor, append(in, data...)); err != nil {
		t.Fatalf("SET_TENSOR %s: %v", tn.name, err)
	}
}

// compute sends the graph: its nodes and every tensor they name.
func (g *bitcosGraph) compute(r *rpcConn) error {
	all := map[uint64]*rpcTensor{}
	for _, t := range []*rpcTensor{&g.w, &g.ts, &g.tr, &g.td, &g.tx, &g.tdst} {
		all[t.id] = t
	}
	for _, n := range append(g.nodes, g.more...) {
		all[n.id] = n
	}
	for _, n := range g.nodes {
		n.flags |= ggmlTensorFlagCompute
	}
	le := binary.LittleEndian
	in := le.AppendUint32(nil, 0) // device
	in = le.AppendUint32(in, uint32(len(g.nodes)))
	for _, n := range g.nodes {
		in = le.AppendUint64(in, n.id)
	}
	in = le.AppendUint32(in, uint32(len(all)))
	for _, t := range all {
		in = append(in, t.bytes()...)
	}
	return r.send(rpcCmdGraphCompute, in)
}

func (g *bitcosGraph) result(t *testing.T, r *rpcConn) []float32 {
	t.Helper()
	in := append(g.tdst.bytes(), make([]byte, 16)...)
	binary.LittleEndian.PutUint64(in[rpcTensorSize+8:], uint64(4*len(g.want)))
	rsp, err := r.call(rpcCmdGetTensor, in, 4*len(g.want))
	if err != nil {
		t.Fatalf("GET_TENSOR: %v", err)
	}
	out := make([]float32, len(g.want))
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(rsp[4*i:]))
	}
	return out
}

// TestRPCCraftedBITCOS sends a loopback ggml-rpc-server BITCOS graphs whose
// companions lie: each must be refused (the server closes that connection,
// logging why) and none may crash the server; a valid graph runs, and gives
// the weights' dot products. The server announces protocol 5.1, which a 5.0
// client refuses at the handshake.
func TestRPCCraftedBITCOS(t *testing.T) {
	s := startRPCServer(t)
	// data: changes the tensors' contents (before they are set); graph:
	// changes what the graph says of them (after)
	cases := []struct {
		name        string
		data, graph func(g *bitcosGraph)
		log         string // in the server's log when refused
	}{
		{"row index not at 0", func(g *bitcosGraph) { g.setRows(1) }, nil, "row index"},
		{"row stream too long", func(g *bitcosGraph) { g.setRows(0, g.rowsAt(1)+1) }, nil, "row index"},
		{"row past the sign stream", func(g *bitcosGraph) {
			g.setRows(0, g.rowsAt(1), g.rowsAt(2), g.rowsAt(3)+1000, g.rowsAt(4)+1000)
		}, nil, "row index"},
		{"row index negative", func(g *bitcosGraph) { g.setRows(0, -8) }, nil, "row index"},
		{"signs shorter than the tail", nil, func(g *bitcosGraph) { g.ts.ne[0] = 4; g.ts.nb = contiguousNB(g.ts.typ, g.ts.ne) }, "companions"},
		{"row index of the wrong length", nil, func(g *bitcosGraph) { g.tr.ne[0] = 4; g.tr.nb = contiguousNB(g.tr.typ, g.tr.ne) }, "companions"},
		{"scales of the wrong type", nil, func(g *bitcosGraph) { g.td.typ = ggmlTypeI32; g.td.nb = contiguousNB(g.td.typ, g.td.ne) }, "companions"},
		// per 128 weights: a grouping ggml_bitcos_scale_group does not know
		{"scales of the wrong shape", nil, func(g *bitcosGraph) { g.td.ne = [4]uint32{2, 4, 1, 1}; g.td.nb = contiguousNB(g.td.typ, g.td.ne) }, "companions"},
		// per 64 weights (a Q2_0 source's grouping), but a row short
		{"scales per 64 of the wrong shape", nil, func(g *bitcosGraph) { g.td.ne = [4]uint32{4, 3, 1, 1}; g.td.nb = contiguousNB(g.td.typ, g.td.ne) }, "companions"},
		{"scales per 64 as F32", nil, func(g *bitcosGraph) {
			g.td.typ = ggmlTypeF32
			g.td.ne = [4]uint32{4, 4, 1, 1}
			g.td.nb = contiguousNB(g.td.typ, g.td.ne)
		}, "companions"},
		{"no companions", nil, func(g *bitcosGraph) {
			g.tdst.src[bitcosSrcSigns], g.tdst.src[bitcosSrcRows], g.tdst.src[bitcosSrcScales] = 0, 0, 0
		}, "companions"},
		{"companion outside the server's buffers", nil, func(g *bitcosGraph) { g.ts.buffer = 0x1234 }, "invalid data ptr"},
		{"BITCOS as the activation", nil, func(g *bitcosGraph) { g.tdst.src[1] = g.w.id }, "as source 1"},
		{"BITCOS in an op that takes none", nil, func(g *bitcosGraph) {
			g.tdst.op, g.tdst.ne = ggmlOpScale, g.w.ne
			g.tdst.nb = contiguousNB(ggmlTypeF32, g.tdst.ne)
			g.tdst.src[1] = 0
		}, "only MUL_MAT"},
		{"a node writes into the row index", nil, func(g *bitcosGraph) {
			// CPY of an I32 tensor (x's bytes) into the row index, then the
			// mat-mul, which would read the new index
			src := &rpcTensor{id: 7, typ: ggmlTypeI32, ne: g.tr.ne, nb: g.tr.nb, buffer: g.tx.buffer, data: g.tx.data, name: "evil"}
			cpy := &rpcTensor{id: 8, typ: ggmlTypeI32, op: ggmlOpCpy, ne: g.tr.ne, nb: g.tr.nb, buffer: g.tr.buffer, data: g.tr.data, name: "cpy"}
			cpy.src[0], cpy.src[1] = src.id, g.tr.id
			g.nodes = []*rpcTensor{cpy, &g.tdst}
			g.more = []*rpcTensor{src}
		}, "writes into a part"},
		{"a node in no buffer writes into the row index", nil, func(g *bitcosGraph) {
			// the same CPY, its result given no buffer but the row
			// index's address (create_node refuses a node like that)
			src := &rpcTensor{id: 7, typ: ggmlTypeI32, ne: g.tr.ne, nb: g.tr.nb, buffer: g.tx.buffer, data: g.tx.data, name: "evil"}
			cpy := &rpcTensor{id: 8, typ: ggmlTypeI32, op: ggmlOpCpy, ne: g.tr.ne, nb: g.tr.nb, data: g.tr.data, name: "cpy"}
			cpy.src[0], cpy.src[1] = src.id, g.tr.id
			g.nodes = []*rpcTensor{cpy, &g.tdst}
			g.more = []*rpcTensor{src}
		}, "invalid data ptr"},
	}
	t.Run("valid", func(t *testing.T) { craftedValid(t, s, newBitcosGraph(1)) })
	// fp16 scales per 64 weights (a Q2_0 source): the server's CPU runs
	// them as Q2_0 (Q8_0 activations)
	t.Run("valid, scales per 64", func(t *testing.T) { craftedValid(t, s, newBitcosGraphGroup(1, 4, 1, 64)) })
	// the same graphs on a server whose CPU layout is TQ2_0 blocks run on
	// its copy in CPU_BITCOS (bitcos_lay_out; Q2_0 blocks for scales per
	// 64), and a bad index written after it is still refused
	t.Run("valid, laid out", func(t *testing.T) {
		tq2 := startRPCServer(t, "GGML_BITCOS_LAYOUT=tq2_0")
		craftedValid(t, tq2, newBitcosGraph(1))
		waitLog(t, tq2, 0, "1 BITCOS weights (0.00 MiB) laid out in CPU_BITCOS")
		craftedValid(t, tq2, newBitcosGraphGroup(2, 4, 1, 64))
		waitLog(t, tq2, 0, "1 with scales per 64 weights as Q2_0 blocks")
	})
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := len(s.output())
			r := dialRPC(t, s.addr)
			g := newBitcosGraph(int64(i + 2))
			if c.data != nil {
				c.data(g)
			}
			g.load(t, r)
			if c.graph != nil {
				c.graph(g)
			}
			err := g.compute(r)
			if err == nil && r.alive() {
				t.Fatalf("the server ran the graph")
			}
			waitLog(t, s, before, c.log)
			if s.exited() {
				t.Fatal("the server exited")
			}
		})
	}
}

// craftedValid: the valid BITCOS graph g runs on s and gives the weights'
// dot products; a bad row index written afterwards makes a recompute fail.
func craftedValid(t *testing.T, s *rpcServer, g *bitcosGraph) {
	r := dialRPC(t, s.addr)
	if r.major != 5 || r.minor != 1 {
		t.Fatalf("server speaks %d.%d, want 5.1 (a 5.0 client refuses a server whose minor version is higher)", r.major, r.minor)
	}
	g.load(t, r)
	if err := g.compute(r); err != nil || !r.alive() {
		t.Fatalf("a valid BITCOS graph was refused (%v):\n%s", err, tailString(s.output(), 2000))
	}
	got := g.result(t, r)
	for i := range got {
		// the activations are quantized to Q8_K (Q8_0): 1% of the row's magnitude
		if d := math.Abs(float64(got[i] - g.want[i])); d > 0.05+0.01*math.Abs(float64(g.want[i])) {
			t.Fatalf("row %d: %g, want %g (all: %v vs %v)\n%s", i, got[i], g.want[i], got, g.want, tailString(s.output(), 3000))
		}
	}
	// the server remembers the checked index; a new index must be
	// checked again: a recomputed graph after a bad one is refused
	g.setRows(0, g.rowsAt(1)+1)
	g.set(t, r, &g.tr, g.rows)
	if err := r.send(rpcCmdGraphRecompute, []byte{0, 0, 0, 0}); err == nil && r.alive() {
		t.Fatalf("a recomputed graph whose row index was overwritten with a bad one ran")
	}
}

// TestRPCCraftedTwoBuffers: a weight that passed the check does not vouch
// for another at the same addresses in another buffer (a Vulkan server gives
// every buffer the same base): on one connection, a valid graph runs, then
// the same graph in a second buffer with a bad row index is refused. On a
// CPU server, and on a Vulkan one when $GGUF_BITCOS_VULKAN_BIN is given.
func TestRPCCraftedTwoBuffers(t *testing.T) {
	servers := map[string]func(t *testing.T) *rpcServer{
		"cpu":    func(t *testing.T) *rpcServer { return startRPCServer(t) },
		"vulkan": func(t *testing.T) *rpcServer { return startRPCServerBin(t, vulkanBin(t, "ggml-rpc-server")) },
	}
	for _, name := range []string{"cpu", "vulkan"} {
		t.Run(name, func(t *testing.T) {
			s := servers[name](t)
			r := dialRPC(t, s.addr)
			good := newBitcosGraph(1)
			good.load(t, r)
			if err := good.compute(r); err != nil || !r.alive() {
				t.Fatalf("a valid BITCOS graph was refused (%v):\n%s", err, tailString(s.output(), 2000))
			}
			bad := newBitcosGraph(1)
			bad.setRows(0, bad.rowsAt(1)+1)
			before := len(s.output())
			bad.load(t, r)
			t.Logf("first buffer's weight at %#x, second's at %#x", good.w.data, bad.w.data)
			if err := bad.compute(r); err == nil && r.alive() {
				t.Fatalf("the server ran a weight with a bad row index in a second buffer")
			}
			waitLog(t, s, before, "row index")
		})
	}
}
