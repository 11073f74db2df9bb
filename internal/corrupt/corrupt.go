// Package corrupt damages GGUF files on purpose, the ways a hostile or
// broken tool would: header rewrites (KVs renamed, retyped or changed,
// tensor infos altered) and byte-level damage. Tests, fuzz targets and the
// compat campaign build their bad inputs with it.
package corrupt

import (
	"bytes"
	"fmt"
	"io"

	"github.com/gguf-bitcos/gguf-bitcos/ggufx"
)

// Rewrite parses the GGUF bytes data, lets edit change its header, and
// writes the file again with every tensor's data copied in order (edit may
// change tensor names, but a tensor's type and shape only to ones of the
// same byte size, or the copy is cut or zero-filled to the new size).
func Rewrite(data []byte, edit func(h *ggufx.Header)) ([]byte, error) {
	f, err := ggufx.Parse(bytes.NewReader(data), int64(len(data)), "input")
	if err != nil {
		return nil, err
	}
	h := ggufx.HeaderFromFile(f)
	edit(&h)
	var out bytes.Buffer
	w, err := ggufx.NewWriter(&out, h)
	if err != nil {
		return nil, err
	}
	for i, t := range w.Tensors() {
		var src io.Reader = bytes.NewReader(nil)
		if i < len(f.Tensors) {
			src = f.Section(i)
		}
		// Exactly t.Size bytes: the source's, cut or zero-filled.
		src = io.MultiReader(io.LimitReader(src, int64(t.Size)), zeros{})
		if _, err := io.CopyN(w, src, int64(t.Size)); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// KVIndex returns the index of key in h, or -1.
func KVIndex(h *ggufx.Header, key string) int {
	for i, kv := range h.KVs {
		if kv.Key == key {
			return i
		}
	}
	return -1
}

// SetKV replaces key's KV (keeping its position) or appends kv.
func SetKV(h *ggufx.Header, kv ggufx.KV) {
	if i := KVIndex(h, kv.Key); i >= 0 {
		h.KVs[i] = kv
		return
	}
	h.KVs = append(h.KVs, kv)
}

// RenameKV renames key to to (a no-op when key is absent).
func RenameKV(h *ggufx.Header, key, to string) {
	if i := KVIndex(h, key); i >= 0 {
		h.KVs[i].Key = to
	}
}

// DeleteKV removes key.
func DeleteKV(h *ggufx.Header, key string) {
	if i := KVIndex(h, key); i >= 0 {
		h.KVs = append(h.KVs[:i], h.KVs[i+1:]...)
	}
}

// SetStringArrayItem sets item n of the string-array KV key to s.
func SetStringArrayItem(h *ggufx.Header, key string, n int, s string) error {
	i := KVIndex(h, key)
	if i < 0 {
		return fmt.Errorf("no KV %q", key)
	}
	items, ok := h.KVs[i].StringArray()
	if !ok || n >= len(items) {
		return fmt.Errorf("KV %q has no string item %d", key, n)
	}
	items[n] = s
	h.KVs[i] = ggufx.KVStringArray(key, items)
	return nil
}

// TensorIndex returns the index of the tensor named name in h, or -1.
func TensorIndex(h *ggufx.Header, name string) int {
	for i, t := range h.Tensors {
		if t.Name == name {
			return i
		}
	}
	return -1
}
