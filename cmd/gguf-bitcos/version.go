package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
)

// pinnedLlamaCpp is the llama.cpp commit the patch series applies to
// (patches/README.md; TestVersionNamesThePin keeps the two equal).
const pinnedLlamaCpp = "34af94cd9ab277632e27caeec2d41de2fd091b31"

// version is the module version and VCS revision this binary was built
// from, as the Go toolchain recorded them; a build from source without a
// module version (Go's "(devel)") says so in words, with the commit where
// the toolchain recorded one.
func version() string {
	v, rev, dirty := "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev != "" {
		rev = rev[:min(12, len(rev))]
		if dirty {
			rev += " with local changes"
		}
	}
	switch {
	case v == "" && rev == "":
		v = "development build (no version recorded: built with -buildvcs=false or outside a git clone)"
	case v == "":
		v = "development build of commit " + rev
	case rev != "" && !strings.Contains(v, rev[:min(12, len(rev))]):
		v += " (commit " + rev + ")"
	}
	return fmt.Sprintf("%s\nwrites BITCOS layout version %d\npatch series for llama.cpp %s\n", v, bitcos.FormatVersion, pinnedLlamaCpp)
}
