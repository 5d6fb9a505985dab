# The Flink JobManager and TaskManager of the session cluster: the official Flink image with
# flink-conf/config.yaml, the catalog's JDBC drivers on the cluster's classpath (lib/: a driver
# in a job jar fails the job's next class loader after a restart), the S3 filesystem plugin for
# checkpoints, the Prometheus reporter plugin (flink-conf names it; each process scrapes at the
# first free port of 9249-9259), and the jobs' shaded jars in usrlib/ (for `flink run`;
# `verglas submit` uploads its own copies over the REST API).
# Build from the repository root:  docker build -f docker/flink.Dockerfile -t verglas/flink .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -pl cli -am package

FROM flink:2.1.1-scala_2.12-java17
COPY --chown=flink:flink flink-conf/config.yaml /opt/flink/conf/config.yaml
COPY --from=build /root/.m2/repository/org/postgresql/postgresql/42.7.14/postgresql-42.7.14.jar /opt/flink/lib/
COPY --from=build /root/.m2/repository/org/xerial/sqlite-jdbc/3.53.0.0/sqlite-jdbc-3.53.0.0.jar /opt/flink/lib/
COPY --from=build /src/cli/target/plugins/s3-fs-hadoop /opt/flink/plugins/s3-fs-hadoop
COPY --from=build /src/cli/target/plugins/metrics-prometheus /opt/flink/plugins/metrics-prometheus
COPY --from=build /src/cli/target/jobs/materializer.jar /src/cli/target/jobs/maintenance.jar /opt/flink/usrlib/
EXPOSE 8081 6123 6124 9249
