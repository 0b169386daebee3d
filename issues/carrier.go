package issues

// Carrier is an error that carries its normalized issues. The root
// package's Engine finds it with errors.As anywhere in an error's chain and
// renders its issues, so it needs to import no adapter: the adapters'
// errors implement it, and so may a user's own error type:
//
//	type outOfStock struct{ sku string }
//
//	func (e outOfStock) Error() string { return "out of stock: " + e.sku }
//	func (e outOfStock) Issues() issues.List {
//		return issues.List{{Code: issues.Custom, Path: issues.Path{"sku"}, Input: e.sku, Message: "Out of stock"}}
//	}
//
// Issues returns nil or an empty list when there is nothing to report; the
// error is then not a validation failure.
type Carrier interface {
	Issues() List
}

// Issues returns l itself: a List is its own Carrier.
func (l List) Issues() List { return l }
