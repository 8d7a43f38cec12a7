package jsrt

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/dop251/goja"
)

// newFS makes the ctx.fs object: readFile(path) → string, writeFile(path,
// data), readdir(path) → sorted names, exists(path) → bool, mkdir(path)
// (creates parents, no error if it exists), remove(path, {recursive}). Every
// path is resolved inside the Module's filesystem root through os.Root, so
// "..", absolute paths outside the root and symlinks leading out are refused
// (CodeForbidden); absolute paths inside the root are accepted. Failures throw
// an Error with a Node-like code (ENOENT, EEXIST, ...) where one applies.
// Without the filesystem permission every method throws.
func (rt *jsRuntime) newFS() goja.Value {
	vm := rt.vm
	o := vm.NewObject()
	def := func(name string, f func(root *os.Root, call goja.FunctionCall) goja.Value) {
		_ = o.Set(name, func(call goja.FunctionCall) goja.Value {
			return f(rt.fsRoot(), call)
		})
	}
	def("readFile", func(root *os.Root, call goja.FunctionCall) goja.Value {
		p := rt.fsPath("readFile", call.Argument(0))
		data, err := root.ReadFile(p)
		if err != nil {
			panic(rt.fsError("readFile", p, err))
		}
		return vm.ToValue(string(data))
	})
	def("writeFile", func(root *os.Root, call goja.FunctionCall) goja.Value {
		p := rt.fsPath("writeFile", call.Argument(0))
		d := call.Argument(1)
		if goja.IsUndefined(d) || goja.IsNull(d) {
			panic(vm.NewTypeError("ctx.fs.writeFile: data must be a string"))
		}
		if err := root.WriteFile(p, []byte(d.String()), 0o644); err != nil {
			panic(rt.fsError("writeFile", p, err))
		}
		return goja.Undefined()
	})
	def("readdir", func(root *os.Root, call goja.FunctionCall) goja.Value {
		arg := call.Argument(0)
		p := "."
		if !goja.IsUndefined(arg) {
			p = rt.fsPath("readdir", arg)
		}
		f, err := root.Open(p)
		if err != nil {
			panic(rt.fsError("readdir", p, err))
		}
		defer f.Close()
		entries, err := f.ReadDir(-1)
		if err != nil {
			panic(rt.fsError("readdir", p, err))
		}
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name()
		}
		slices.Sort(names)
		vals := make([]any, len(names))
		for i, n := range names {
			vals[i] = n
		}
		return vm.NewArray(vals...)
	})
	def("exists", func(root *os.Root, call goja.FunctionCall) goja.Value {
		p := rt.fsPath("exists", call.Argument(0))
		_, err := root.Stat(p)
		switch {
		case err == nil:
			return vm.ToValue(true)
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			return vm.ToValue(false)
		}
		panic(rt.fsError("exists", p, err))
	})
	def("mkdir", func(root *os.Root, call goja.FunctionCall) goja.Value {
		p := rt.fsPath("mkdir", call.Argument(0))
		if err := root.MkdirAll(p, 0o755); err != nil {
			panic(rt.fsError("mkdir", p, err))
		}
		return goja.Undefined()
	})
	def("remove", func(root *os.Root, call goja.FunctionCall) goja.Value {
		p := rt.fsPath("remove", call.Argument(0))
		recursive := false
		if opts, ok := call.Argument(1).(*goja.Object); ok {
			recursive = opts.Get("recursive").ToBoolean()
		}
		if filepath.Clean(p) == "." {
			panic(rt.forbidden("ctx.fs.remove: refusing to remove the filesystem root itself"))
		}
		var err error
		if recursive {
			err = root.RemoveAll(p)
		} else {
			err = root.Remove(p)
		}
		if err != nil {
			panic(rt.fsError("remove", p, err))
		}
		return goja.Undefined()
	})
	return o
}

// fsRoot returns the root ctx.fs works in, or throws when the tool may not
// use the filesystem.
func (rt *jsRuntime) fsRoot() *os.Root {
	m := rt.m
	if !m.perms.Filesystem {
		panic(rt.forbidden(`filesystem permission not declared: add permissions: ["filesystem"] to the tool`))
	}
	if m.fsRoot == nil {
		panic(rt.forbidden(m.fsErr))
	}
	return m.fsRoot
}

// fsPath checks a path argument and makes an absolute path inside the root
// relative to it.
func (rt *jsRuntime) fsPath(op string, arg goja.Value) string {
	if !isString(arg) || arg.String() == "" {
		panic(rt.vm.NewTypeError(fmt.Sprintf("ctx.fs.%s: the path must be a non-empty string", op)))
	}
	p := arg.String()
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(rt.m.fsRootAbs, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			panic(rt.forbidden(fmt.Sprintf("ctx.fs.%s: path %q is outside the tool's filesystem root (refused)", op, p)))
		}
		p = rel
	}
	if !filepath.IsLocal(p) && filepath.Clean(p) != "." {
		panic(rt.forbidden(fmt.Sprintf("ctx.fs.%s: path %q leads outside the tool's filesystem root (refused)", op, p)))
	}
	return p
}

// fsError makes the JS error for a failed filesystem operation.
func (rt *jsRuntime) fsError(op, p string, err error) *goja.Object {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return rt.forbidden(fmt.Sprintf("ctx.fs.%s: path %q escapes the tool's filesystem root (refused)", op, p))
	}
	reason := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err
	}
	o := rt.newError(fmt.Sprintf("ctx.fs.%s %q: %v", op, p, reason))
	code := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code = "ENOENT"
	case errors.Is(err, fs.ErrExist):
		code = "EEXIST"
	case errors.Is(err, fs.ErrPermission):
		code = "EACCES"
	case errors.Is(err, syscall.ENOTDIR):
		code = "ENOTDIR"
	case errors.Is(err, syscall.EISDIR):
		code = "EISDIR"
	case errors.Is(err, syscall.ENOTEMPTY):
		code = "ENOTEMPTY"
	}
	if code != "" {
		_ = o.Set("code", code)
	}
	return o
}
