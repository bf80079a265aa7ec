package cmake

// Control flow: if/elseif/else (conditions decided, or undecided with
// every branch read), foreach, while and block.

import (
	"maps"
	"strconv"
	"strings"
)

// condEnv for one context.
type condCtx struct {
	e *evaluator
	c *ctx
}

func (cc condCtx) hasTarget(name string) bool {
	_, imported := cc.e.imported[name]
	return len(cc.e.targets[name]) > 0 || imported
}

func (cc condCtx) root() string { return cc.e.absRoot }

func (cc condCtx) cmakeVersion() string { return cc.e.cmakeVersion(cc.c) }

func (cc condCtx) modelled(ns string) bool { return cc.e.modelledNS[ns] }

func (cc condCtx) hasCommand(name string) bool {
	name = strings.ToLower(name)
	return cc.e.funcs[name] != nil || knownCommands()[name]
}

// condition evaluates an if()/elseif()/while() condition; why says why it
// is undecided, and a Note says what was taken without being known.
func (e *evaluator) condition(c *ctx, cmd *Command) (tri, string) {
	args := e.expandArgs(c, cmd)
	toks := make([]ctok, len(args))
	for i, a := range args {
		toks[i] = ctok{s: a.val, quoted: a.quoted, expanded: a.expanded}
	}
	ce := &condEval{env: condCtx{e, c}}
	v := ce.eval(toks)
	if ce.guess != "" && v != triUnknown {
		e.note(e.cmdLoc(cmd), "%s decided without knowing: %s", cmd, ce.guess)
	}
	return v, ce.why
}

func (e *evaluator) execIf(c *ctx, b *block, i int) ctl {
	endIdx := b.end[i]
	undecidedSoFar := false
	// Under an undecided condition every branch is read, each from the
	// variables as they were before the if(), and what the branches leave
	// different is merged afterwards (branchState).
	var before *branchState
	defer func() {
		if before != nil {
			before.merge(e, c)
		}
	}()
	for h := i; h < endIdx; h = b.next[h] {
		cmd := b.cmds[h]
		v, why := triTrue, ""
		if cmd.Name != "else" {
			v, why = e.condition(c, cmd)
		}
		if v == triFalse {
			continue
		}
		lo, hi := h+1, b.next[h]
		if v == triUnknown {
			if why == "" {
				why = "a value is not known"
			}
			e.note(e.cmdLoc(cmd), "cannot evaluate %s (%s): all branches read", cmd, why)
			undecidedSoFar = true
		}
		if !undecidedSoFar {
			return e.exec(c, b, lo, hi)
		}
		if before == nil {
			before = snapshot(e, c)
		} else {
			before.next(e, c)
		}
		e.conds = append(e.conds, Cond{File: cmd.File, Line: cmd.Line, Text: cmd.String(), If: b.cmds[i].Line})
		r := e.exec(c, b, lo, hi)
		e.conds = e.conds[:len(e.conds)-1]
		if r != ctlNone || v == triTrue || cmd.Name == "else" {
			before.covered = true // one of the branches read runs on every path
			return r
		}
	}
	return ctlNone
}

// branchState is what the branches of an undecided if() start from and
// what each left: the current scope's variables and the cache.
type branchState struct {
	vars  map[string]binding
	cache map[string]string
	ends  []map[string]binding
	cends []map[string]string
	// covered is set when a branch read runs on every path (an else, or
	// a condition known true): the state before the if() is no path's.
	covered bool
}

func snapshot(e *evaluator, c *ctx) *branchState {
	return &branchState{vars: maps.Clone(c.sc.vars), cache: maps.Clone(e.cache)}
}

// next records the state a branch left and restores the one before the
// if() for the next branch.
func (s *branchState) next(e *evaluator, c *ctx) {
	s.ends = append(s.ends, c.sc.vars)
	s.cends = append(s.cends, e.cache)
	c.sc.vars, e.cache = maps.Clone(s.vars), maps.Clone(s.cache)
}

// merge leaves each variable as the branches agree on it, or marked
// (markBranch) where they do not: a later condition on it is undecided
// rather than decided by whichever branch was read last.
func (s *branchState) merge(e *evaluator, c *ctx) {
	s.ends = append(s.ends, c.sc.vars)
	s.cends = append(s.cends, e.cache)
	if !s.covered {
		s.ends = append(s.ends, s.vars)
		s.cends = append(s.cends, s.cache)
	}
	last := len(s.ends) - 1
	vars := maps.Clone(s.ends[last])
	for _, end := range s.ends[:last] {
		for k := range end {
			if _, ok := vars[k]; !ok {
				vars[k] = end[k]
			}
		}
	}
	for k, b := range vars {
		for _, end := range s.ends {
			if o, ok := end[k]; !ok || o != b {
				if b.state == bindSet {
					b.val = markEach(b.val, markBranch)
				}
				vars[k] = b
				break
			}
		}
	}
	cache := maps.Clone(s.cends[last])
	for _, end := range s.cends[:last] {
		for k, v := range end {
			if _, ok := cache[k]; !ok {
				cache[k] = v
			}
		}
	}
	for k, v := range cache {
		for _, end := range s.cends {
			if o, ok := end[k]; !ok || o != v {
				cache[k] = markEach(v, markBranch)
				break
			}
		}
	}
	c.sc.vars, e.cache = vars, cache
}

func (e *evaluator) execForeach(c *ctx, b *block, i int) ctl {
	cmd := b.cmds[i]
	args := e.expandArgs(c, cmd)
	lo, hi := i+1, b.end[i]
	if len(args) == 0 {
		return ctlNone
	}
	in := -1
	for k, a := range args {
		if a.is("IN") && !a.quoted {
			in = k
			break
		}
	}
	var loopVars []string
	nvars := 1
	if in > 0 {
		nvars = in
	}
	for _, a := range args[:nvars] {
		if hasUnknown(a.val) {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: the loop variable is not known; body not read", cmd)
			return ctlNone
		}
		loopVars = append(loopVars, stripMarks(a.val))
	}
	// rows[k] are the values of the loop variables in iteration k.
	var rows [][]string
	one := func(items []string) {
		for _, it := range items {
			rows = append(rows, []string{it})
		}
	}
	rest := args[nvars:]
	switch {
	case in < 0 && len(rest) > 0 && rest[0].is("RANGE"):
		items, ok := rangeItems(rest[1:])
		if !ok {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s: the range is not known; body read once with %s unknown", cmd, loopVars[0])
			items = []string{unknownRef(refVar, loopVars[0])}
		}
		one(items)
	case in >= 0:
		mode := ""
		var zip [][]string
		for _, a := range args[in+1:] {
			if !a.quoted && (a.is("LISTS") || a.is("ITEMS") || a.is("ZIP_LISTS")) {
				mode = a.val
				continue
			}
			switch mode {
			case "ITEMS":
				one([]string{a.val})
			case "LISTS", "ZIP_LISTS":
				name := stripMarks(a.val)
				v, st := e.variable(c.sc, name)
				var items []string
				switch {
				case hasUnknown(a.val) || st == varUnknown:
					e.note(e.cmdLoc(cmd), "cannot evaluate %s: list %s is not known; body read once with it", cmd, name)
					items = []string{unknownRef(refVar, name)}
				case st == varSet:
					items = splitList(v)
				}
				if mode == "LISTS" {
					one(items)
				} else {
					zip = append(zip, items)
				}
			}
		}
		if zip != nil {
			rows = zipRows(zip)
			if nvars == 1 {
				base := loopVars[0]
				loopVars = nil
				for k := range zip {
					loopVars = append(loopVars, base+"_"+strconv.Itoa(k))
				}
			}
		}
	default:
		one(vals(rest))
	}
	nc := *c
	nc.loopBase = len(e.conds)
	saved := make([]binding, len(loopVars))
	had := make([]bool, len(loopVars))
	for k, v := range loopVars {
		saved[k], had[k] = c.sc.vars[v]
	}
	defer func() {
		for k, v := range loopVars {
			if had[k] {
				c.sc.vars[v] = saved[k]
			} else {
				delete(c.sc.vars, v)
			}
		}
	}()
	for n, row := range rows {
		if n >= maxLoop {
			e.note(e.cmdLoc(cmd), "%s stopped after %d iterations", cmd.Raw+"()", maxLoop)
			break
		}
		for k, v := range loopVars {
			if k < len(row) {
				c.sc.set(v, row[k])
			} else {
				c.sc.vars[v] = binding{state: bindUnset}
			}
		}
		switch r := e.exec(&nc, b, lo, hi); r {
		case ctlBreak:
			return ctlNone
		case ctlReturn:
			return r
		}
	}
	return ctlNone
}

func zipRows(lists [][]string) [][]string {
	n := 0
	for _, l := range lists {
		n = max(n, len(l))
	}
	rows := make([][]string, n)
	for k := range rows {
		rows[k] = make([]string, len(lists))
		for j, l := range lists {
			if k < len(l) {
				rows[k][j] = l[k]
			}
		}
	}
	return rows
}

// rangeItems is foreach(RANGE stop | start stop [step]).
func rangeItems(args []xarg) ([]string, bool) {
	var n []int
	for _, a := range args {
		if undecided(a.val) {
			return nil, false
		}
		v, err := strconv.Atoi(strings.TrimSpace(a.val))
		if err != nil {
			return nil, false
		}
		n = append(n, v)
	}
	start, stop, step := 0, 0, 1
	switch len(n) {
	case 1:
		stop = n[0]
	case 2:
		start, stop = n[0], n[1]
	case 3:
		start, stop, step = n[0], n[1], n[2]
	default:
		return nil, false
	}
	if step <= 0 || stop < start {
		return nil, stop < start || step > 0
	}
	var items []string
	for v := start; v <= stop && len(items) <= maxLoop; v += step {
		items = append(items, strconv.Itoa(v))
	}
	return items, true
}

func (e *evaluator) execWhile(c *ctx, b *block, i int) ctl {
	cmd := b.cmds[i]
	lo, hi := i+1, b.end[i]
	for n := 0; ; n++ {
		v, why := e.condition(c, cmd)
		if v == triFalse {
			return ctlNone
		}
		if n >= maxWhile {
			e.note(e.cmdLoc(cmd), "%s stopped after %d iterations", cmd, maxWhile)
			return ctlNone
		}
		nc := *c
		if v == triUnknown {
			e.note(e.cmdLoc(cmd), "cannot evaluate %s (%s): body read once", cmd, why)
			e.conds = append(e.conds, Cond{File: cmd.File, Line: cmd.Line, Text: cmd.String()})
			nc.loopBase = len(e.conds)
			r := e.exec(&nc, b, lo, hi)
			e.conds = e.conds[:len(e.conds)-1]
			if r == ctlReturn {
				return r
			}
			return ctlNone
		}
		nc.loopBase = len(e.conds)
		switch r := e.exec(&nc, b, lo, hi); r {
		case ctlBreak:
			return ctlNone
		case ctlReturn:
			return r
		}
	}
}

func (e *evaluator) execBlock(c *ctx, b *block, i int) ctl {
	cmd := b.cmds[i]
	args := e.expandArgs(c, cmd)
	newVars := true
	var propagate []string
	mode := ""
	for _, a := range args {
		switch a.val {
		case "SCOPE_FOR":
			newVars = false
			mode = a.val
			continue
		case "PROPAGATE":
			mode = a.val
			continue
		}
		switch {
		case mode == "SCOPE_FOR" && a.val == "VARIABLES":
			newVars = true
		case mode == "PROPAGATE":
			propagate = append(propagate, stripMarks(a.val))
		}
	}
	nc := *c
	if newVars {
		nc.sc = newScope(c.sc)
	}
	r := e.exec(&nc, b, i+1, b.end[i])
	if newVars {
		for _, name := range propagate {
			if bd, ok := nc.sc.get(name); ok {
				c.sc.vars[name] = bd
			}
		}
	}
	return r
}
