"""Applications built on the library: the `keras-sentemb` command and index folders."""
