package ppl

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// llama-perplexity's saved log-probabilities (--kl-divergence-base FILE
// without --kl-divergence): "_logits_", n_ctx (u32), n_vocab (i32), n_chunk
// (i32), the n_ctx*n_chunk evaluated tokens (i32), then for each chunk its
// last n_ctx-1-n_ctx/2 tokens, each as nv = 2*((n_vocab+1)/2)+4 16-bit words
// (two floats, a scale and an offset, then the log-probs quantized to 16
// bits). Two runs whose logits are equal at that resolution write the same
// bytes: the comparison has no noise floor of its own.

// logitsDiff is what compareLogits found.
type logitsDiff struct {
	Identical bool
	// Header: the files differ before the log-probs (context, vocabulary
	// or the tokens of the text).
	Header bool
	// Words and Differ count the stored 16-bit words and those that
	// differ; FirstToken is the evaluated token of the first difference.
	Words, Differ int64
	FirstToken    int64
	Tokens        int64
}

// String says what differs, in words.
func (d logitsDiff) String() string {
	switch {
	case d.Identical:
		return "identical"
	case d.Header:
		return "the saved headers differ (context size, vocabulary or the tokens of the text)"
	}
	return fmt.Sprintf("%d of %d stored 16-bit words differ, the first at evaluated token %d of %d",
		d.Differ, d.Words, d.FirstToken, d.Tokens)
}

// compareLogits compares two files of saved log-probabilities.
func compareLogits(a, b string) (logitsDiff, error) {
	var d logitsDiff
	fa, err := os.Open(a)
	if err != nil {
		return d, err
	}
	defer fa.Close()
	fb, err := os.Open(b)
	if err != nil {
		return d, err
	}
	defer fb.Close()
	ra, rb := bufio.NewReaderSize(fa, 1<<20), bufio.NewReaderSize(fb, 1<<20)
	var ha, hb [20]byte
	if _, err := io.ReadFull(ra, ha[:]); err != nil {
		return d, fmt.Errorf("%s: not a file of saved log-probabilities: %w", a, err)
	}
	if _, err := io.ReadFull(rb, hb[:]); err != nil {
		return d, fmt.Errorf("%s: not a file of saved log-probabilities: %w", b, err)
	}
	if string(ha[:8]) != "_logits_" {
		return d, fmt.Errorf("%s: not a file of saved log-probabilities", a)
	}
	if ha != hb {
		d.Header = true
		return d, nil
	}
	nCtx := int64(binary.LittleEndian.Uint32(ha[8:]))
	nVocab := int64(int32(binary.LittleEndian.Uint32(ha[12:])))
	nChunk := int64(int32(binary.LittleEndian.Uint32(ha[16:])))
	nv := 2*((nVocab+1)/2) + 4
	if nCtx < 0 || nVocab < 0 || nChunk < 0 || nCtx*nChunk > 1<<40 {
		return d, fmt.Errorf("%s: implausible header (n_ctx %d, n_vocab %d, n_chunk %d)", a, nCtx, nVocab, nChunk)
	}
	d.Tokens = nChunk * (nCtx - 1 - nCtx/2)
	// The tokens of the text, then the log-probs.
	ta, tb := make([]byte, 4*nCtx*nChunk), make([]byte, 4*nCtx*nChunk)
	_, ea := io.ReadFull(ra, ta)
	_, eb := io.ReadFull(rb, tb)
	if ea != nil || eb != nil || !bytes.Equal(ta, tb) {
		d.Header = true
		return d, nil
	}
	d.FirstToken = -1
	bufA, bufB := make([]byte, 1<<16), make([]byte, 1<<16)
	for {
		na, ea := io.ReadFull(ra, bufA)
		nb, eb := io.ReadFull(rb, bufB)
		n := min(na, nb) &^ 1
		for i := 0; i < n; i += 2 {
			if bufA[i] != bufB[i] || bufA[i+1] != bufB[i+1] {
				if d.FirstToken < 0 {
					d.FirstToken = (d.Words + int64(i/2)) / nv
				}
				d.Differ++
			}
		}
		d.Words += int64(n / 2)
		if na != nb {
			d.Differ++ // one file is longer
			if d.FirstToken < 0 {
				d.FirstToken = d.Words / nv
			}
		}
		if ea != nil || eb != nil {
			if ea != nil && ea != io.EOF && ea != io.ErrUnexpectedEOF {
				return d, fmt.Errorf("%s: %w", a, ea)
			}
			if eb != nil && eb != io.EOF && eb != io.ErrUnexpectedEOF {
				return d, fmt.Errorf("%s: %w", b, eb)
			}
			break
		}
	}
	d.Identical = d.Differ == 0
	return d, nil
}
