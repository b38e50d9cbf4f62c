// The two-CU example of BTF deduplication: the same struct S seen through
// different partial knowledge in two compilation units.
// Compile: $CC -g -c -O0 -gdwarf-$V twocu_a.c -o twocu_a.o; link with twocu_b.o: $CC -r twocu_a.o twocu_b.o -o twocu.o
struct B;
struct A { int x; struct B *b; };
struct S { struct A *a; struct B *b; };
struct S s_in_a;
