// Package discovery registers service instances in etcd and resolves them
// for gRPC clients, the right way and the wrong ways, behind small
// interfaces so scenarios can run a user's own recipes beside them.
//
// An instance registers with a Registrar, which keeps its key
// "<service>/<addr>" on a lease and keeps the lease alive; clients dial
// "etcd:///<service>" with a Resolver and balance round-robin over the
// instances it finds. Backend is a tiny echo service to register and call.
//
//	b, err := discovery.StartBackend("a")
//	defer b.Close()
//	reg, err := discovery.NewKeepAlive(cli, "echo", b.Addr(), discovery.Options{TTL: 5 * time.Second})
//	err = reg.Register(ctx)
//	defer reg.Close()
//
//	res, err := discovery.NewRelisting(cli, "echo", discovery.Options{})
//	defer res.Close()
//	cc, err := discovery.Dial(res, "echo")
//	defer cc.Close()
//	instance, _, err := discovery.Echo(ctx, cc, "hello") // "a"
//
// Correct recipes: NewKeepAlive (registers again after losing its lease)
// and NewRelisting (linearizable listings; lists again when its watch
// fails). The deliberately broken ones are not exported: a broken recipe
// is reached by name, through the registry, so that nobody builds one by
// accident. They are the registrar "noreregister" and the resolvers
// "stopsonerror" (etcd's naming resolver loop), "serializable" and
// "debounced" (misapplies a delete then a put of one key), each in a file
// broken_*.go whose constructor's doc comment begins "BROKEN
// (deliberately):" and says what breaks. Registrars and Resolvers list
// them; LookupRegistrar and LookupResolver find one by name:
//
//	r, err := discovery.LookupResolver("stopsonerror")
//	res, err := r.New(cli, "echo", discovery.Options{})
//
// A registrar may write a record format of its own: a Decode reads it
// back (key and value to address), and the resolvers here read through
// Options.Decode (DecodeEndpoint by default; the broken "stopsonerror",
// which is etcd's own resolver loop, reads only etcd's record). A record a
// Decode cannot read is left out of the set, and State.Err says which, as
// an *UnreadableError (Unreadable lists them).
//
// Wrong input is an error, never a silent no-op: an empty service
// (ErrBadService) or address (ErrBadAddr), a TTL that is not whole seconds
// or that the cluster would raise to its minimum (ErrBadTTL), a second
// Register (ErrRegistered), a target naming another service
// (ErrWrongTarget).
package discovery
