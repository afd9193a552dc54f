"""The sandbox: bubblewrap, the zygote that forks each bot, its seccomp
filter, user namespace and control groups."""
