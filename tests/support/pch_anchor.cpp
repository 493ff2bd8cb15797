// The translation unit that builds the test executables' shared precompiled header (tests/CMakeLists.txt,
// asmevo_test_pch); it has no code of its own.
