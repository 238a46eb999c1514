# Pass 1 (owned with the parser): lexer, preprocessor, parser, unparser.
PARSER_SOURCES = translator/ast.c translator/lexer.c translator/lexer.h translator/preprocess.c \
	translator/parse.c translator/unparse.c
