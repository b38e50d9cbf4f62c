// Second unit of the two-CU example: here struct A is only declared, and
// struct B is complete.
// Compile: $CC -g -c -O0 -gdwarf-$V twocu_b.c -o twocu_b.o
struct A;
struct B { long y; struct A *a; };
struct S { struct A *a; struct B *b; };
struct S s_in_b;
