// Package demangle turns linker symbol names into the names people read, and
// tells which third-party component a symbol comes from.
//
// Name demangles Itanium C++ (and Rust) symbols on top of
// github.com/ianlancetaylor/demangle so that the text matches GNU c++filt,
// the tool users compare etlink's output with (`nm -C`, `objdump -C`). It
// caches results because reports print the same symbols many times.
//
// Components classifies symbols by C prefix and C++ namespace, mostly without
// demangling, because conflict detection looks at every exported symbol of a
// wheel and its peers: often a million names.
package demangle

import (
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/etlink/etlink/internal/budget"

	upstream "github.com/ianlancetaylor/demangle"
)

// maxOutputPow bounds demangled output to 1 MiB, so that crafted names whose
// substitutions expand exponentially cost bounded memory.
const maxOutputPow = 20

// options matches c++filt's defaults: parameters, templates and the verbose
// spellings (DMGL_PARAMS | DMGL_ANSI | DMGL_VERBOSE). NoRust stops the
// upstream legacy-Rust guess; legacyRust replaces it.
var options = []upstream.Option{upstream.Verbose, upstream.NoRust, upstream.MaxLength(maxOutputPow)}

// Name returns sym demangled as GNU c++filt prints it, or sym itself when it
// is not a mangled name or does not demangle.
//
// It differs from c++filt (binutils 2.40) in three ways, each checked by the
// tests against the c++filt binary:
//
//   - Rust v0 symbols (_R...) print without the crate disambiguators c++filt
//     shows in its default verbose mode: "std[e28293b1aa0f68bd]::x" is
//     printed "std::x", as `c++filt -i` and llvm-cxxfilt print it. The
//     upstream package cannot print them, and they are noise to a reader.
//   - GCC sometimes emits a substitution that refers back to a template
//     parameter first seen in another template's arguments: libstdc++'s
//     std::call_once instantiates once_flag::_Prepare_execution's
//     constructor template, declared _Prepare_execution(_Callable&), with a
//     lambda local to call_once. Name prints the parameter of the template in
//     scope, "_Prepare_execution<...{lambda()#1}>(...{lambda()#1}&)", the
//     constructor's real signature; c++filt and llvm-cxxfilt resolve it in
//     the template where it was first seen and print "(void (*&)(...))".
//     On Debian 12 this affects 7 of the 11831 dynamic symbols of libstdc++
//     and libprotobuf, all from protobuf's uses of std::call_once.
//   - A name whose demangled form would exceed 1 MiB is returned raw, so
//     that a crafted name cannot make Name allocate without bound; so is a
//     name over 4096 bytes or with more than 32 qualifiers in a row, so
//     that one cannot make it run for seconds (Skipped counts them).
//
// Legacy Rust symbols (_ZN...17h<hash>E) and GCC's old "_GLOBAL__I_<key>"
// names are demangled here, following libiberty, because the upstream
// package prints them differently from c++filt (it drops the Rust hash and
// strips underscores c++filt keeps, and keeps the "_I_" of a plain key).
//
// The caller must strip an ELF symbol version first: "_ZN3foo3barEv@@V1_2"
// is not a mangled name and comes back unchanged. Split at the first '@' and
// print the version after the demangled name, as nm -C does.
//
// Name is safe for concurrent use. Each name is demangled at most once per
// run (UseBudget starts one), and only while the run's demangling budget
// lasts: past it names are returned as they are (OverBudget counts them).
func Name(sym string) string {
	if !mayBeMangled(sym) {
		return sym
	}
	return lookup(sym, func(e *entry) **string { return &e.name }, func() string {
		if !afford(sym) {
			return sym
		}
		return demangle(sym)
	})
}

// mayBeMangled reports whether sym has a prefix c++filt demangles at all.
// Everything else (C names, Clang's ___Z..._block_invoke, which c++filt
// leaves alone on ELF) is returned as is without a cache lookup.
func mayBeMangled(sym string) bool {
	return strings.HasPrefix(sym, "_Z") || strings.HasPrefix(sym, "_R") || strings.HasPrefix(sym, "_GLOBAL_")
}

// demangle is Name without the cache.
func demangle(sym string) (out string) {
	if !mayBeMangled(sym) {
		return sym
	}
	// The upstream package recovers only its own error panics and has
	// panicked on crafted input before; a symbol name read from a file
	// must not crash the tool.
	defer func() {
		if recover() != nil {
			out = sym
		}
	}()
	if s, ok := globalCDtor(sym); ok {
		return s
	}
	if s, ok := legacyRust(sym); ok {
		return s
	}
	if strings.HasPrefix(sym, "_GLOBAL_") {
		return sym
	}
	if tooDeep(sym) { // afford counts it
		return sym
	}
	s, err := upstream.ToString(sym, options...)
	if err != nil || s == "" {
		return sym // a name that demangles to nothing (_RC0) stays as it is
	}
	return s
}

// The upstream demangler takes time quadratic in a name's nesting: "_Z1f"
// followed by 16,000 "P" costs 0.6 s, 300,000 over a minute. Real names
// are far from it (the longest dynamic symbol of libtorch_cpu and libLLVM
// is 554 bytes): names over maxMangled bytes, or with a run of more than
// maxQualifiers pointer, reference and cv qualifiers, are left raw, at
// most ~30 ms of demangling each.
const (
	maxMangled    = 4096
	maxQualifiers = 32
)

// skipped counts the names left raw for their size.
var skipped atomic.Int64

// Skipped is how many names Name has left raw because they were over the
// demangler's bound (crafted, or beyond any real C++ name).
func Skipped() int64 { return skipped.Load() }

func tooDeep(sym string) bool {
	if len(sym) > maxMangled {
		return true
	}
	run := 0
	for i := 0; i < len(sym); i++ {
		switch sym[i] {
		case 'P', 'R', 'O', 'K', 'V', 'r':
			if run++; run > maxQualifiers {
				return true
			}
		default:
			run = 0
		}
	}
	return false
}

// globalCDtor handles GCC's old "_GLOBAL_[._$][ID]_<key>" names the way
// libiberty does: the key is demangled if it is a mangled name (anything
// after its encoding, such as a clone suffix, is dropped) and printed
// verbatim otherwise. The upstream package keeps the "_I_" in the verbatim
// case.
func globalCDtor(sym string) (string, bool) {
	if len(sym) <= len("_GLOBAL__I_") || !strings.HasPrefix(sym, "_GLOBAL_") ||
		strings.IndexByte("._$", sym[8]) < 0 || sym[10] != '_' {
		return "", false
	}
	var kind string
	switch sym[9] {
	case 'I':
		kind = "global constructors keyed to "
	case 'D':
		kind = "global destructors keyed to "
	default:
		return "", false
	}
	key := sym[11:]
	if !strings.HasPrefix(key, "_Z") {
		return kind + key, true
	}
	if i := strings.IndexByte(key, '.'); i >= 0 {
		key = key[:i]
	}
	if !afford(key) {
		return sym, true
	}
	s, err := upstream.ToString(key, options...)
	if err != nil {
		return "", false
	}
	return kind + s, true
}

// The cache holds every name a run demangles (and each name's qualified
// path and signature, which components and registration matching read), so
// that no name costs the demangler twice: the run's budget bounds what it
// holds. Without a budget (a caller that never started a run) each of its
// 64 shards forgets its names past 4096 rather than grow without bound.
const (
	cacheShards   = 64
	cacheShardMax = 4096
)

// entry is what the run has learnt of one name.
type entry struct {
	name *string
	path *[]string
	sig  *sigResult
}

type cacheShard struct {
	mu sync.Mutex
	m  map[string]*entry
	_  [48]byte // keep neighbouring shards' locks off one cache line
}

var (
	cache     [cacheShards]cacheShard
	cacheSeed = maphash.MakeSeed()
	// run is the budget demangling is charged to (nil: none).
	run atomic.Pointer[budget.Budget]
	// overBudget counts the names left raw because the budget was spent.
	overBudget atomic.Int64
)

func shardOf(sym string) *cacheShard {
	return &cache[maphash.String(cacheSeed, sym)%cacheShards]
}

// lookup returns the field of sym's entry that field selects, computing
// it with compute when the run has not yet.
func lookup[T any](sym string, field func(*entry) **T, compute func() T) T {
	sh := shardOf(sym)
	sh.mu.Lock()
	if e := sh.m[sym]; e != nil {
		if v := *field(e); v != nil {
			sh.mu.Unlock()
			return *v
		}
	}
	sh.mu.Unlock()
	out := compute()
	sh.mu.Lock()
	if sh.m == nil || len(sh.m) >= cacheShardMax && run.Load() == nil {
		sh.m = make(map[string]*entry)
	}
	e := sh.m[sym]
	if e == nil {
		// Clone the key: sym is often a slice of a whole string table,
		// which the cache must not keep alive.
		e = &entry{}
		sh.m[strings.Clone(sym)] = e
	}
	*field(e) = &out
	sh.mu.Unlock()
	return out
}

// UseBudget starts a run: the names demangled from now on are charged to b
// (nil: no limit), and none is remembered from before.
func UseBudget(b *budget.Budget) {
	run.Store(b)
	overBudget.Store(0)
	skipped.Store(0)
	for i := range cache {
		cache[i].mu.Lock()
		cache[i].m = nil
		cache[i].mu.Unlock()
	}
}

// OverBudget is how many names the run left raw because its demangling
// budget was spent.
func OverBudget() int64 { return overBudget.Load() }

// afford reports whether sym may be handed to the upstream demangler: it
// is within the per-name bound (tooDeep) and the run's budget pays for it.
// A name costs its length squared: the upstream demangler's time grows
// with its nesting, which its length bounds (4 KiB names cost up to 56 ms,
// the 83,749 C++ names of libtorch_cpu, libtorch_python and libLLVM-15
// 1.5 s, 7.1e8 units).
func afford(sym string) bool {
	if tooDeep(sym) {
		skipped.Add(1)
		return false
	}
	n := int64(len(sym))
	if run.Load().Charge(budget.Demangled, n*n, sym) != nil {
		overBudget.Add(1)
		return false
	}
	return true
}
