"""A plugin package for the tests, installed from a wheel built by hand (tests/test_plugins.py): two
Python policies on the reference engine, each a built-in policy's readable twin with a parameter, so
that at its default a plugin policy must play exactly the built-in policy's games."""
