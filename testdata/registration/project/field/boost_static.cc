// Links Debian's libboost_program_options.a and libboost_regex.a, using a part.
#include <boost/program_options.hpp>
int main() { boost::program_options::options_description d("x"); d.add_options()("help", "h"); return 0; }
