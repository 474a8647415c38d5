// Package arch holds no code: its test checks that every package of the
// module imports only the packages its floor allows, the layering that
// docs/ARCHITECTURE.md draws. A new package, or a new import between
// floors, is added to the table of the test and to that document.
package arch
