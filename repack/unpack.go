package repack

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// DefaultUnpackOutput is where unpack writes when no output is given.
func DefaultUnpackOutput(in string) string {
	if s := strings.TrimSuffix(in, ".bitcos.gguf"); s != in {
		return s + ".unpacked.gguf"
	}
	return strings.TrimSuffix(in, ".gguf") + ".unpacked.gguf"
}

// Unpack rewrites a BITCOS file back into its source types. For a source
// whose layout was canonical (Report.Canonical empty) the result is the
// original file byte for byte.
func Unpack(in, out string) error {
	f, done, err := openJoined(in)
	if err != nil {
		return err
	}
	defer done()
	defer f.Close()
	if out == "" {
		out = DefaultUnpackOutput(in)
	}
	if same, _ := sameFile(in, out); same {
		return fmt.Errorf("%s: output would overwrite the input", in)
	}
	h, src, err := unpackHeader(f)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return fmt.Errorf("%s: cannot create the output: %w", out, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 4<<20)
	w, err := ggufx.NewWriter(bw, h)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	var b tensorBuf
	for i, t := range f.Tensors {
		if isCompanion(t.Name) {
			continue
		}
		if t.Type != ggufx.TypeBITCOS {
			if _, err := io.Copy(w, f.Section(i)); err != nil {
				return fmt.Errorf("%s: tensor %q: %w", in, t.Name, err)
			}
			continue
		}
		if err := loadBitcos(f, i, &b); err != nil {
			return err
		}
		c := CodecFor(src[t.Name])
		data := make([]byte, c.TensorBytes(b.p.K, b.p.Rows))
		if err := c.Encode(&b.p, &b.s, data); err != nil {
			return fmt.Errorf("%s: tensor %q: %w", in, t.Name, err)
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	if st, err := os.Stat(in); err == nil {
		tmp.Chmod(st.Mode().Perm())
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	v, err := Verify(in, tmp.Name())
	if err != nil {
		return err
	}
	if !v.OK() {
		return fmt.Errorf("%s: unpacked output does not verify: %s", out, strings.Join(v.Diffs, "; "))
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return err
	}
	ok = true
	return nil
}

// unpackHeader drops the bitcos.* KVs and the companions and gives every
// BITCOS tensor back its source type (bitcos.source_types, in tensor order).
func unpackHeader(f *input) (ggufx.Header, map[string]ggufx.GGMLType, error) {
	kv, ok := f.KV(KeyVersion)
	if !ok {
		return ggufx.Header{}, nil, fmt.Errorf("%s: not a BITCOS file (no %s)", f.Path, KeyVersion)
	}
	if v, _ := kv.AsUint32(); v != FormatVersion {
		return ggufx.Header{}, nil, fmt.Errorf("%s: BITCOS layout version %s is not supported (this build reads %d)", f.Path, kv.ValueString(), FormatVersion)
	}
	var types []string
	if kv, ok := f.KV(KeySourceTypes); ok {
		types, _ = kv.StringArray()
	}
	h := ggufx.HeaderFromFile(f.File)
	h.KVs = nil
	for _, kv := range f.KVs {
		if !strings.HasPrefix(kv.Key, KeyPrefix) {
			h.KVs = append(h.KVs, kv)
		}
	}
	h.Tensors = nil
	src := map[string]ggufx.GGMLType{}
	n := 0
	for i, t := range f.Tensors {
		if isCompanion(t.Name) {
			continue
		}
		if t.Type == ggufx.TypeBITCOS {
			if n >= len(types) {
				return h, nil, fmt.Errorf("%s: %s lists %d source types, but tensor %q is BITCOS tensor %d", f.Path, KeySourceTypes, len(types), t.Name, n+1)
			}
			st, ok := ggufx.ParseGGMLType(types[n])
			if !ok || CodecFor(st) == nil {
				return h, nil, fmt.Errorf("%s: tensor %q: source type %q is not one unpack can write", f.Path, t.Name, types[n])
			}
			if _, err := findFamily(f.File, i); err != nil {
				return h, nil, err
			}
			n++
			src[t.Name] = st
			t.Type = st
		}
		h.Tensors = append(h.Tensors, ggufx.TensorInfo{Name: t.Name, Dims: t.Dims, Type: t.Type})
	}
	if n != len(types) {
		return h, nil, fmt.Errorf("%s: %s lists %d source types for %d BITCOS tensors", f.Path, KeySourceTypes, len(types), n)
	}
	return h, src, nil
}
