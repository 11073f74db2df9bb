package repack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
	"github.com/gguf-bitcos/gguf-bitcos/format"
	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// DefaultUnpackOutput is where unpack writes when no output is given:
// X-BITCOS.gguf (and the layout-1 name X.bitcos.gguf) -> X.unpacked.gguf,
// anything else -> NAME.unpacked.gguf (never the original's name, which may
// be beside it).
func DefaultUnpackOutput(in string) string {
	for _, suffix := range []string{"-BITCOS.gguf", ".bitcos.gguf"} {
		if s := strings.TrimSuffix(in, suffix); s != in {
			return s + ".unpacked.gguf"
		}
	}
	return strings.TrimSuffix(in, ".gguf") + ".unpacked.gguf"
}

// Unpack rewrites a BITCOS file back into its source types. For a source
// whose layout was canonical (Report.Canonical empty) the result is the
// original file byte for byte.
// It replaces an existing file at out only when replace, never the input.
func Unpack(in, out string, replace bool) error {
	f, done, err := openJoined(in)
	if err != nil {
		return err
	}
	defer done()
	defer f.Close()
	defaulted := out == ""
	if defaulted {
		out = DefaultUnpackOutput(in)
	}
	if f.meta == nil {
		return fmt.Errorf("%s: not a BITCOS file (no %s)", in, bitcos.KeyVersion)
	}
	if err := checkOutput(in, out, replace); err != nil {
		return defaultNameTaken(err, in, defaulted)
	}
	tmp, err := createOutput(out, inputPerm(in), replace)
	if err != nil {
		return err
	}
	defer tmp.Abort() // nothing after a Commit
	bw := bufio.NewWriterSize(tmp, unpackBuffer(in))
	if err := unpackTo(f, bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	// The written file, decoded, must hold what the BITCOS file holds.
	v, err := Verify(in, tmp.ReadPath(), VerifyOptions{Fast: true})
	if err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("%s: unpacked output does not verify: %s", out, strings.Join(v.Diffs, "; "))
	}
	return tmp.Commit()
}

// unpackBuffer sizes Unpack's write buffer: 4 MiB for a model, less for a
// small file (twice its size, at least 64 KiB), whose unpack would otherwise
// spend more time clearing the buffer than writing (fuzz runs, fixtures).
func unpackBuffer(in string) int {
	const lo, hi = 64 << 10, 4 << 20
	st, err := os.Stat(in)
	if err != nil || st.Size() >= hi/2 {
		return hi
	}
	return max(lo, int(2*st.Size()))
}

// unpackTo streams the unpacked form of BITCOS file f to w: its header
// without the bitcos.* KVs and the companions, every BITCOS tensor encoded
// back in its source type, everything else copied. Verify runs it into a
// comparison with the original instead of a file.
func unpackTo(f *input, w io.Writer) error {
	h := unpackHeader(f)
	gw, err := ggufx.NewWriter(w, h)
	if err != nil {
		return fmt.Errorf("%s: %w", f.Path, err)
	}
	var b tensorBuf
	var data []byte
	for i, t := range f.Tensors {
		if bitcos.IsCompanion(t.Name) {
			continue
		}
		if t.Type != ggufx.TypeBITCOS {
			if _, err := io.Copy(gw, f.Section(i)); err != nil {
				return fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)
			}
			continue
		}
		if err := loadBitcos(f, i, &b); err != nil {
			return err
		}
		c := format.CodecFor(f.meta.Sources[t.Name])
		if n := c.TensorBytes(b.p.K, b.p.Rows); cap(data) < n {
			data = make([]byte, n)
		} else {
			data = data[:n]
		}
		if err := c.Encode(&b.p, &b.s, data); err != nil {
			return fmt.Errorf("%s: tensor %q: %w", f.Path, t.Name, err)
		}
		if _, err := gw.Write(data); err != nil {
			return err
		}
	}
	return gw.Close()
}

// unpackHeader drops the bitcos.* KVs and the companions of validated BITCOS
// file f, gives general.file_type back its source value (restoredKVs) and
// every BITCOS tensor its source type.
func unpackHeader(f *input) ggufx.Header {
	h := ggufx.HeaderFromFile(f.File)
	h.KVs = restoredKVs(f)
	h.Tensors = nil
	for _, t := range f.Tensors {
		if bitcos.IsCompanion(t.Name) {
			continue
		}
		if t.Type == ggufx.TypeBITCOS {
			t.Type = f.meta.Sources[t.Name]
		}
		h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type})
	}
	return h
}
