package repack

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/gguf-bitcos/gguf-bitcos/internal/atomicfile"
	"github.com/gguf-bitcos/gguf-bitcos/internal/ggufsplit"
)

// What a verb may write over: nothing that exists, unless asked (replace),
// and never its input, through any spelling of either path. Each verb
// checks its outputs with these before it does any work, and creates them
// with createOutput, whose Commit then refuses a file that appeared at the
// target meanwhile (when not replacing).

// inputFiles are the files of the model at in: its shards, or in alone.
func inputFiles(in string) []string {
	if paths, err := ShardFiles(in); err == nil && len(paths) > 0 {
		return paths
	}
	return []string{in}
}

// checkOutput is atomicfile.Check for out, against every file of the
// model at in.
func checkOutput(in, out string, replace bool) error {
	return atomicfile.Check(out, replace, inputFiles(in)...)
}

// checkShardOutputs checks, before the number of shards is known, where
// shards PREFIX-NNNNN-of-NNNNN.gguf would go: every existing file of that
// form (a set of any size, which the new set would mix with) as an output,
// and the folder.
func checkShardOutputs(in, prefix string, replace bool) error {
	inputs := inputFiles(in)
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(filepath.Base(prefix)) + `-\d{5}-of-\d{5}\.gguf$`)
	if ents, err := os.ReadDir(filepath.Dir(prefix)); err == nil {
		for _, e := range ents {
			if re.MatchString(e.Name()) {
				if err := atomicfile.Check(filepath.Join(filepath.Dir(prefix), e.Name()), replace, inputs...); err != nil {
					return err
				}
			}
		}
	}
	return atomicfile.Check(ggufsplit.Path(prefix, 0, 1), true, inputs...)
}

// createOutput starts writing out: replacing a file there only when
// replace (atomicfile.CreateNew otherwise).
func createOutput(out string, perm os.FileMode, replace bool) (*atomicfile.File, error) {
	if replace {
		return atomicfile.Create(out, perm)
	}
	return atomicfile.CreateNew(out, perm)
}

// defaultNameTaken says, when the default output name of in is taken
// (defaulted), that the file there may come from another source: two
// sources can share a default name (model-TQ2_0.gguf and model-I2_S.gguf
// both repack to model-BITCOS.gguf).
func defaultNameTaken(err error, in string, defaulted bool) error {
	var ee *atomicfile.ExistsError
	if !defaulted || !errors.As(err, &ee) {
		return err
	}
	return fmt.Errorf("%s: already exists, and is the default output name of %s (another source can have the same one); not replaced: give an output path, or --force to replace it", ee.Path, in)
}
