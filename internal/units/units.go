// Package units prints sizes for people.
package units

import "fmt"

// Bytes prints n bytes in binary units (B, KiB, MiB, GiB).
func Bytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// Count prints n and noun, in the plural unless n is 1 ("1 tensor",
// "3 tensors"); nouns here take an s.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Change prints how much smaller after is than before, as a share of
// before ("8.2% less", "the same", "0.4% more"): a ratio like "1.00x
// less" hides small changes and reads wrong for none.
func Change(before, after int64) string {
	switch {
	case before == after:
		return "the same"
	case before <= 0:
		return "more"
	case after < before:
		return fmt.Sprintf("%.1f%% less", 100*float64(before-after)/float64(before))
	}
	return fmt.Sprintf("%.1f%% more", 100*float64(after-before)/float64(before))
}
