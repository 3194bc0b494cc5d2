"""Deployment: the Dockerfile's compose topology, and the same topology started from
Debian's packages on one machine (``make cluster``, :mod:`deploy.local_cluster`)."""
