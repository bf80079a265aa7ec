package budget

import (
	"errors"
	"sync"
	"testing"
)

func TestChargeStopsAtTheLimitAndNamesTheInput(t *testing.T) {
	var lim Limits
	if err := lim.Set("read=1KiB, objects=3"); err != nil {
		t.Fatal(err)
	}
	b := New(lim)
	if err := b.Charge(Read, 1000, "a.so"); err != nil {
		t.Fatal(err)
	}
	err := b.Charge(Read, 100, "b.so")
	var e *Exhausted
	if !errors.As(err, &e) || e.Input != "b.so" || e.Kind != Read || e.Limit != 1024 {
		t.Fatalf("past the limit: %v", err)
	}
	// Once spent, a kind stays spent, even for a charge that would fit.
	if err := b.Charge(Read, 1, "c.so"); err == nil || !b.Spent(Read) {
		t.Errorf("a charge after the budget was spent passed")
	}
	if b.Used(Read) != 1000 {
		t.Errorf("used %d, want 1000 (the refused charges not spent)", b.Used(Read))
	}
	// Other kinds are their own; a kind without a limit never trips.
	if err := b.Charge(Objects, 3, "x"); err != nil {
		t.Error(err)
	}
	if err := b.Charge(Inflated, 1<<50, "x"); err != nil {
		t.Error(err)
	}
	var none *Budget
	if err := none.Charge(Read, 1<<60, "x"); err != nil {
		t.Error("a nil budget has no limits")
	}
}

func TestConcurrentChargesNeverPassTheLimit(t *testing.T) {
	var lim Limits
	lim[Objects] = 1000
	b := New(lim)
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for range 8 {
		wg.Go(func() {
			for range 500 {
				if b.Charge(Objects, 1, "o") == nil {
					mu.Lock()
					passed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if passed > 1000 || b.Used(Objects) > 1000 {
		t.Errorf("%d charges passed, %d used, limit 1000", passed, b.Used(Objects))
	}
}

func TestSetParsesUnitsAndRefusesNonsense(t *testing.T) {
	var lim Limits
	if err := lim.Set("inflate=2GiB,demangle=100,include=0"); err != nil {
		t.Fatal(err)
	}
	if lim[Inflated] != 2<<30 || lim[Demangled] != 100 || lim[Included] != 0 {
		t.Errorf("parsed %v", lim)
	}
	for _, bad := range []string{"read", "reed=1", "read=-1", "objects=1GiB", "read=99999999999TiB", "read=1.5GiB"} {
		if err := lim.Set(bad); err == nil {
			t.Errorf("Set(%q) accepted", bad)
		}
	}
	if got := Defaults.String(); got != "read=64GiB,inflate=32GiB,objects=200000,demangle=536870912,include=100000" {
		t.Errorf("Defaults print as %s", got)
	}
}
