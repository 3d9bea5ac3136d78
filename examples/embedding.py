"""Embedding yarnball: a plain-Python ApplicationMaster on a 4-node cluster, in virtual time."""


from yarnball import ApplicationMaster, Cluster, Configuration, Resource
from yarnball.launcher.workloads import WorkloadBuilder


class MyAM(ApplicationMaster):
    def on_registered(self, response):
        self.done = 0
        self.add_container_request(Resource(2048, 1), priority=1, count=3)

    def on_containers_allocated(self, containers):
        for c in containers:
            self.start_container(c, duration_ms=10_000)

    def on_containers_completed(self, statuses):
        self.done += len(statuses)
        if self.done == 3:
            self.finish()

nodes = WorkloadBuilder().nodes(4, memory_mb=8192, vcores=8).build().nodes
cluster = Cluster(Configuration(), nodes, seed=1)
cluster.submit(MyAM(name="demo", submit_at_ms=1000))
cluster.run()                      # virtual time: returns when every application has finished
print(cluster.applications[0].final_status.value, f"at {cluster.now / 1000:.1f} s")
