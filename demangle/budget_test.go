package demangle

import (
	"strings"
	"testing"

	"github.com/etlink/etlink/internal/budget"
)

// A run's budget pays for each distinct name once, in every use of it
// (printing, components, signatures); past it names stay mangled and are
// counted, and a new run starts from nothing.
func TestRunBudget(t *testing.T) {
	defer UseBudget(nil)
	const a, b = "_ZN3foo3barEv", "_ZN3baz3quxEi"
	var lim budget.Limits
	lim.SetOne("demangle", "338") // a costs its 13 bytes squared, twice
	run := budget.New(lim)
	UseBudget(run)
	for range 3 {
		if got := Name(a); got != "foo::bar()" {
			t.Fatalf("Name(%q) = %q", a, got)
		}
		if sig, ok := FunctionSignature(a); !ok || sig.Params != 0 {
			t.Fatalf("FunctionSignature(%q) = %+v, %v", a, sig, ok)
		}
	}
	// The signature is another reading of a: it costs once more.
	if used := run.Used(budget.Demangled); used != 338 {
		t.Errorf("spent %d units on one name read three times, want 338", used)
	}
	if got := Name(b); got != b {
		t.Errorf("Name(%q) past the budget = %q, want it mangled", b, got)
	}
	if qualifiedPath(b) != nil {
		t.Errorf("qualifiedPath(%q) past the budget demangled it", b)
	}
	if n := OverBudget(); n != 2 {
		t.Errorf("OverBudget() = %d, want 2 (b's name and path)", n)
	}
	UseBudget(nil)
	if got := Name(b); got != "baz::qux(int)" || OverBudget() != 0 {
		t.Errorf("a new run without a budget: Name(%q) = %q, OverBudget %d", b, got, OverBudget())
	}
}

// Deep names cost up to tens of milliseconds each inside the per-name
// bound; the default budget stops a file of them within seconds.
func TestDefaultBudgetBoundsDeepNames(t *testing.T) {
	defer UseBudget(nil)
	UseBudget(budget.New(budget.Defaults))
	var body strings.Builder
	for body.Len() < maxMangled-40 {
		body.WriteString(strings.Repeat("P", maxQualifiers) + "A1_")
	}
	base := body.String()
	done := 0
	for i := range 2000 {
		id := "g" + itoa(i)
		sym := "_Z" + itoa(len(id)) + id + base + "i"
		if Name(sym) == sym {
			break
		}
		done++
	}
	if done == 0 || done > 40 {
		t.Errorf("demangled %d names of %d bytes before the default budget stopped it, want 1..40", done, len(base))
	}
}
