// Prints how @huggingface/gguf (the Hugging Face hub's GGUF reader) labels each file
// given: the quant label it reads from the name, general.file_type and its name.
// Run by compat/hfgguf_test.go from a folder where the package is installed.
import { gguf, parseGGUFQuantLabel, GGMLFileQuantizationType } from "@huggingface/gguf";
for (const name of process.argv.slice(2)) {
  const { metadata, tensorInfos } = await gguf(name, { allowLocalFile: true, computeParametersCount: true });
  const ft = metadata["general.file_type"];
  let params = 0n;
  for (const t of tensorInfos) params += t.shape.reduce((a, b) => a * BigInt(b), 1n);
  console.log(JSON.stringify({ name, label: parseGGUFQuantLabel(name) ?? null, file_type: ft, file_type_name: GGMLFileQuantizationType[ft] ?? null, tensors: tensorInfos.length, all_elements: params.toString() }));
}
