// C++ types without references (which pahole cannot encode): namespaces,
// inheritance, a scoped enum with an underlying type, a class with a
// bitfield, a static member and a multi-dimensional array.
// Compile: $CXX -g -c -O0 cxx.cc -o cxx.o   (CXX=g++|clang++)
namespace ns {
struct Base {
	int b;
	virtual ~Base();
};
struct Derived : Base {
	long d;
	static int counter;
};
enum class Color : unsigned char { Red, Green = 7 };
class Holder {
public:
	Derived *p;
	Color c;
	int arr[2][3];

private:
	unsigned flags : 3;
};
} // namespace ns

ns::Holder holder_var;
ns::Derived *derived_ptr;
