nokaslr
