"""flatc's C++ header for a schema, as every .fbs in the tree is compiled."""

def flatbuffer_cc_header(name, src):
    """The <src minus .fbs>_generated.h flatc writes for `src` (scoped enums), as target `name`."""
    native.genrule(
        name = name,
        srcs = [src],
        outs = [src[:-len(".fbs")] + "_generated.h"],
        cmd = "flatc --cpp --scoped-enums -o $(@D) $<",
    )
