"""Batfish verification through pybatfish: export a snapshot Batfish can analyse, ask the
plane-isolation question suite, and turn the answers into our findings. Needs a running Batfish
service (`docker run batfish/allinone`); nothing here fakes an answer."""
