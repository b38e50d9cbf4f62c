// C++ fixture for the DIE decoder tests: namespaces, classes, templates.
#include <cstddef>

namespace fixture {

enum class mode : unsigned char { off, on = 3 };

template <typename T, int N>
struct box {
	T items[N];
	static constexpr int size = N;
	T &at(std::size_t i) { return items[i]; }
};

class shape {
public:
	virtual ~shape() {}
	virtual double area() const = 0;
	mode m = mode::on;
};

class square : public shape {
	double side;

public:
	explicit square(double s) : side(s) {}
	double area() const override { return side * side; }
};

} // namespace fixture

int main(int argc, char **)
{
	fixture::box<int, 4> b{};
	fixture::square sq(argc);
	const fixture::shape &ref = sq;
	int &&rv = b.at(1) + 0;
	return (int)ref.area() + b.at(0) + rv + fixture::box<long, 2>::size;
}
