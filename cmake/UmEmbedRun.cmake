# Script mode: cmake -DIN=file -DOUT=file.c -DSYM=name -P UmEmbedRun.cmake
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x[0-9a-f][0-9a-f],){16}" "\\0\n" bytes "${bytes}")
get_filename_component(name ${IN} NAME)
file(WRITE ${OUT}.tmp "/* generated from ${name} by UmEmbedRun.cmake; do not edit */\n"
     "const char ${SYM}[] = {\n${bytes}0x00};\n")
file(RENAME ${OUT}.tmp ${OUT})
