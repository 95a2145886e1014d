# export/embed.cmake - a file as a C byte array (cmake -P, at build time):
#   -DIN=page.html -DOUT=page_html.c -DNAME=tdr_export_html_page
# The page is kept as a file of its own so that it can be edited and opened
# in a browser as it is; tdrec carries it inside the binary.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR len "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE ${OUT}.tmp "/* Generated from export/${IN_NAME} by export/embed.cmake: do not edit. */\n#include <stddef.h>\nconst unsigned char ${NAME}[] = {\n${bytes}0x00};\nconst size_t ${NAME}_len = ${len};\n")
configure_file(${OUT}.tmp ${OUT} COPYONLY)
