"""wordstats: word frequencies of plain-text files."""
