package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func TestVersionNamesThePin(t *testing.T) {
	var o, e bytes.Buffer
	if code := run([]string{"--version"}, &o, &e); code != 0 {
		t.Fatal(e.String())
	}
	readme, _ := os.ReadFile("../../patches/README.md")
	if !strings.Contains(o.String(), "writes BITCOS layout version 2") || !strings.Contains(o.String(), pinnedLlamaCpp) ||
		!strings.Contains(string(readme), pinnedLlamaCpp) {
		t.Fatalf("--version: %q (patches/README names the pin: %v)", o.String(), strings.Contains(string(readme), pinnedLlamaCpp))
	}
	if strings.Contains(o.String(), "(devel)") {
		t.Fatalf("--version says Go's (devel): %q", o.String())
	}
}
