// Package hf reads Hugging Face tokenizer.json and GGUF tokenizers, and
// counts tokens exactly as the models that ship them do.
//
// It supports what the tokenizer files of Llama 3, Qwen 2.5 and 3,
// DeepSeek V3 (byte-level BPE), Gemma 3, Gemini's Gemma vocabulary and
// Mistral (SentencePiece-style BPE with byte fallback) use:
//
//   - normalizers: Sequence, NFC, Replace with a String pattern, Prepend;
//   - pre-tokenizers: Sequence; Split with the Llama 3, Qwen and
//     DeepSeek V3 regular expressions (matched by hand-written code, not a
//     regex engine) or with a String pattern; ByteLevel with use_regex
//     false; Metaspace;
//   - model BPE with merges (either form), byte_fallback, ignore_merges,
//     unk_token and fuse_unk;
//   - added tokens, matched literally (leftmost, then longest) before
//     normalization; lstrip, rstrip and single_word must be false;
//   - post-processors Sequence, ByteLevel and TemplateProcessing, read
//     for the special tokens they add around a text (see
//     Tokenizer.SpecialTokens: Count leaves them out).
//
// Anything else is refused by Parse with an error that names the JSON key
// and what is supported. ReadGGUF reads the tokenizer that llama.cpp
// writes into a GGUF file's metadata. A Loader loads each file once and
// keeps it by the SHA-256 of its contents.
package hf
