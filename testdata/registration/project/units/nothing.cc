// Static initializers that register nothing: each computes a value into the
// unit's own objects, or hands something only to the C++ runtime.
#include <absl/synchronization/mutex.h>
#include <locale>
#include <map>
#include <regex>
#include <string>
#include "support.h"

static Widget widget;                                   // a class defined in another unit
static Logger& logger = Logger::get("nothing");         // a logger singleton
static const std::string computed = compute_name();     // a value another unit computes
static const std::map<int, int> built = build_table();  // a container another unit builds
static const std::map<int, int> table = {{1, 2}, {3, 4}};
static const std::regex pattern("reg[a-z]+");
static const std::locale classic = std::locale::classic();
static absl::Mutex mu(absl::kConstInit);                // constant-initialized, its destructor at exit
static int guarded = Counter<int>::value;               // a guarded template static

extern "C" int reg_nothing_anchor() { return widget.n + logger.level + (int)computed.size() + (int)table.size() + (int)built.size() + guarded; }
