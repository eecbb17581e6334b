"""A second snapshot for the stand-in to change to, and a stall that holds documents until then.

Upstream deploying a newer snapshot while a sync runs, or between a killed sync and the
next, made deterministic: with --stall-after N the stand-in answers N document requests,
then holds every further one open (nothing sent) until POST /_switch, which serves the
--then-root snapshot from that moment on (held requests are answered from it) and ends the
stall. A test kills pokesync while its requests are held (exactly N documents delivered),
or switches and lets the run go on.
"""

import threading


class SnapshotSwitch:
    """The snapshot POST /_switch changes to, and the document stall before it."""

    def __init__(self, then_data=None, then_proxy_deploy_hash=None, stall_after=None):
        self.then_data = then_data
        self.then_proxy_deploy_hash = then_proxy_deploy_hash
        self.stall_after = stall_after
        self.switched = threading.Event()
        self._lock = threading.Lock()
        self._admitted = 0
        self.stalled = 0

    def admit(self):
        """True to answer this document request now; False to hold it until the switch."""
        with self._lock:
            if self.switched.is_set() or self.stall_after is None or self._admitted < self.stall_after:
                self._admitted += 1
                return True
            self.stalled += 1
            return False

    def switch(self, server):
        """Serve the second snapshot from now on (when there is one) and release held requests."""
        with self._lock:
            if self.then_data is not None:
                server.data = self.then_data
                if self.then_proxy_deploy_hash is not None:
                    server.proxy_deploy_hash = self.then_proxy_deploy_hash
            self.switched.set()
