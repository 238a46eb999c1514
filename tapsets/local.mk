# tapsets/: the .stp library, installed under $(pkgdatadir)/tapsets
tapsetdir = $(pkgdatadir)/tapsets
dist_tapset_DATA = tapsets/logging.stp tapsets/task.stpm
