"""A GCC cross toolchain for Bazel's C++ rules: Debian's g++-<triple> (e.g. g++-aarch64-linux-gnu).

Debian's cross compilers are multiarch-aware: they find the target's headers in /usr/include/<triple>
and /usr/include, and its libraries (installed as <package>:arm64) in /usr/lib/<triple>, so no sysroot
is needed. Used by --config=aarch64 and --config=aarch64_static (.bazelrc, docs/arm64.md).
"""

load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)
load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.linkstamp_compile,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _impl(ctx):
    triple = ctx.attr.triple
    gcc_version = ctx.attr.gcc_version
    tools = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]
    tool_paths = [tool_path(name = t, path = "/usr/bin/%s-%s" % (triple, t)) for t in tools]

    default_compile = feature(
        name = "default_compile_flags",
        enabled = True,
        flag_sets = [
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = [
                    "-U_FORTIFY_SOURCE",
                    "-fstack-protector",
                    "-Wall",
                    "-fno-omit-frame-pointer",
                    # Bazel passes the same source paths on every machine; keep __DATE__ etc. out.
                    "-Wno-builtin-macro-redefined",
                    "-D__DATE__=\"redacted\"",
                    "-D__TIMESTAMP__=\"redacted\"",
                    "-D__TIME__=\"redacted\"",
                ])],
            ),
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = ["-g"])],
                with_features = [with_feature_set(features = ["dbg"])],
            ),
            flag_set(
                actions = _COMPILE_ACTIONS,
                flag_groups = [flag_group(flags = [
                    "-g0",
                    "-O2",
                    "-D_FORTIFY_SOURCE=1",
                    "-DNDEBUG",
                    "-ffunction-sections",
                    "-fdata-sections",
                ])],
                with_features = [with_feature_set(features = ["opt"])],
            ),
        ],
    )

    default_link = feature(
        name = "default_link_flags",
        enabled = True,
        flag_sets = [
            flag_set(
                actions = _LINK_ACTIONS,
                flag_groups = [flag_group(flags = ["-lstdc++", "-lm", "-Wl,-z,relro,-z,now"])],
            ),
            flag_set(
                actions = _LINK_ACTIONS,
                flag_groups = [flag_group(flags = ["-Wl,--gc-sections"])],
                with_features = [with_feature_set(features = ["opt"])],
            ),
        ],
    )

    features = [
        default_compile,
        default_link,
        feature(name = "supports_pic", enabled = True),
        feature(name = "supports_dynamic_linker", enabled = True),
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(name = "fastbuild"),
    ]

    gcc_lib = "/usr/lib/gcc-cross/%s/%s" % (triple, gcc_version)
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        cxx_builtin_include_directories = [
            "/usr/%s/include" % triple,
            gcc_lib + "/include",
            gcc_lib + "/include-fixed",
            "/usr/include/%s" % triple,
            "/usr/include",
        ],
        toolchain_identifier = triple,
        host_system_name = "x86_64-unknown-linux-gnu",
        target_system_name = triple,
        target_cpu = ctx.attr.cpu,
        target_libc = "glibc",
        compiler = "gcc",
        abi_version = "gcc",
        abi_libc_version = "glibc",
        tool_paths = tool_paths,
    )

cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {
        "cpu": attr.string(mandatory = True),
        "triple": attr.string(mandatory = True),
        "gcc_version": attr.string(mandatory = True),
    },
    provides = [CcToolchainConfigInfo],
)
