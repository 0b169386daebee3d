package mutate

import "reflect"

// Mark is what All writes in place of every string and of every value
// held in an interface that is not a container.
const Mark = "HACKED"

// All changes, in place, everything v reaches through pointers, slices,
// maps, interfaces and exported struct fields: every string becomes Mark,
// every number 999 (or another where 999 is already there; a small type
// keeps what fits), every bool its opposite, every interface holding a
// scalar Mark; a map with string keys whose values can be Mark gains the
// key Mark. v is a pointer or holds one of the containers, so that there
// is something to change. A value reached twice is changed twice.
func All(v any) {
	mutate(reflect.ValueOf(v), 0)
}

// maxDepth stops a cyclic value; no result of the module is this deep.
const maxDepth = 200

func mutate(v reflect.Value, depth int) {
	if !v.IsValid() || depth > maxDepth {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			mutate(v.Elem(), depth+1)
		}
		return
	case reflect.Slice:
		for i := range v.Len() {
			mutate(v.Index(i), depth+1)
		}
		return
	case reflect.Array:
		for i := range v.Len() {
			mutate(v.Index(i), depth+1)
		}
		return
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if container(e) {
				mutate(e, depth+1)
				continue
			}
			if m, ok := marked(e.Type()); ok {
				v.SetMapIndex(k, m)
			}
		}
		if k, ok := marked(v.Type().Key()); ok {
			if e, ok := marked(v.Type().Elem()); ok {
				v.SetMapIndex(k, e)
			}
		}
		return
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); container(e) {
			mutate(e, depth+1)
			return
		}
		if m, ok := marked(v.Type()); ok && v.CanSet() {
			v.Set(m)
		}
		return
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				mutate(v.Field(i), depth+1)
			}
		}
		return
	}
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(Mark)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(other(v.Int()))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		if v.Uint() == 999 {
			v.SetUint(998)
		} else {
			v.SetUint(999)
		}
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(other(int64(v.Float()))))
	}
}

// other is a number that is not n.
func other(n int64) int64 {
	if n == 999 {
		return -999
	}
	return 999
}

// container reports whether v holds something All can change through it:
// a pointer, slice or map, or a struct, whose fields may be ones (held in
// an interface, a struct is a copy, but its slices are not).
func container(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map:
		return !v.IsNil()
	case reflect.Interface:
		return !v.IsNil() && container(v.Elem())
	case reflect.Struct:
		return true
	}
	return false
}

// marked returns Mark as a value of type t, for a string type or an
// interface a string satisfies.
func marked(t reflect.Type) (reflect.Value, bool) {
	s := reflect.ValueOf(Mark)
	switch {
	case t.Kind() == reflect.String:
		return s.Convert(t), true
	case t.Kind() == reflect.Interface && s.Type().Implements(t):
		return s, true
	}
	return reflect.Value{}, false
}
