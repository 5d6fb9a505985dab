# The launcher: the `verglas` command (local, submit, jobs, stop, table, push, ...). Its default
# command runs the whole stack in one container (`verglas local`); in compose.yaml it submits
# the materializer to the session cluster.
# Build from the repository root:  docker build -f docker/launcher.Dockerfile -t verglas/launcher .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -pl cli -am package \
 && sed -i 's#/root/.m2/repository#/opt/verglas/repository#g' cli/target/launcher.classpath

# The repository's layout under /opt/verglas, so the `verglas` script runs as it does in a
# checkout (it finds no sources there, so it never tries to build).
FROM eclipse-temurin:17-jre
WORKDIR /opt/verglas
COPY --from=build /root/.m2/repository /opt/verglas/repository
COPY --from=build /src/cli/target/verglas-cli.jar /src/cli/target/launcher.classpath /opt/verglas/cli/target/
COPY --from=build /src/cli/target/jobs /opt/verglas/cli/target/jobs
COPY --from=build /src/cli/target/plugins /opt/verglas/cli/target/plugins
COPY verglas /opt/verglas/verglas
ENV VERGLAS_JAVA_OPTS="-Xms256m -Xmx2g"
EXPOSE 9100 8815 9101
VOLUME /data
ENTRYPOINT ["/opt/verglas/verglas"]
CMD ["local", "--data-dir", "/data", "--host", "0.0.0.0"]
