package repack

import (
	"fmt"

	"github.com/gguf-bitcos/gguf-bitcos/bitcos"
)

// fileTypeNames are llama.cpp's llama_ftype names at the pinned commit
// (include/llama.h, without LLAMA_FTYPE_), with the patch series' BITCOS.
var fileTypeNames = map[int64]string{
	0: "ALL_F32", 1: "MOSTLY_F16", 2: "MOSTLY_Q4_0", 3: "MOSTLY_Q4_1", 7: "MOSTLY_Q8_0",
	8: "MOSTLY_Q5_0", 9: "MOSTLY_Q5_1", 10: "MOSTLY_Q2_K", 11: "MOSTLY_Q3_K_S", 12: "MOSTLY_Q3_K_M",
	13: "MOSTLY_Q3_K_L", 14: "MOSTLY_Q4_K_S", 15: "MOSTLY_Q4_K_M", 16: "MOSTLY_Q5_K_S", 17: "MOSTLY_Q5_K_M",
	18: "MOSTLY_Q6_K", 19: "MOSTLY_IQ2_XXS", 20: "MOSTLY_IQ2_XS", 21: "MOSTLY_Q2_K_S", 22: "MOSTLY_IQ3_XS",
	23: "MOSTLY_IQ3_XXS", 24: "MOSTLY_IQ1_S", 25: "MOSTLY_IQ4_NL", 26: "MOSTLY_IQ3_S", 27: "MOSTLY_IQ3_M",
	28: "MOSTLY_IQ2_S", 29: "MOSTLY_IQ2_M", 30: "MOSTLY_IQ4_XS", 31: "MOSTLY_IQ1_M", 32: "MOSTLY_BF16",
	36: "MOSTLY_TQ1_0", 37: "MOSTLY_TQ2_0", 38: "MOSTLY_MXFP4_MOE", 39: "MOSTLY_NVFP4", 40: "MOSTLY_Q1_0",
	41: "MOSTLY_Q2_0", bitcos.FileTypeBITCOS: "MOSTLY_BITCOS",
}

// FileTypeText is general.file_type ft for people: its number and
// llama.cpp's name for it ("37 (MOSTLY_TQ2_0)"), or why there is none.
func FileTypeText(ft int64) string {
	if ft < 0 {
		return "none (no general.file_type)"
	}
	if name, ok := fileTypeNames[ft]; ok {
		return fmt.Sprintf("%d (%s)", ft, name)
	}
	return fmt.Sprintf("%d (not a llama.cpp file type)", ft)
}
