package checker

func init() {
	checkers = append(checkers,
		namedChecker{"lock-linearizable", func(h History) Result { return LockLinearizable(h, LinOptions{}).Result }},
		namedChecker{"register-linearizable", func(h History) Result { return RegisterLinearizable(h, LinOptions{}).Result }},
	)
}
