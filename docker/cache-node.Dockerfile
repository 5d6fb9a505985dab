# A cache node by itself (`verglas cache-node`): the S3 endpoint over an S3-compatible origin,
# its admin port and the REST catalog at /catalog. Keys come from the environment (see
# `verglas cache-node --help`).
# Build from the repository root:  docker build -f docker/cache-node.Dockerfile -t verglas/cache-node .
FROM maven:3.9-eclipse-temurin-17 AS build
WORKDIR /src
COPY . .
RUN mvn -B -q -DskipTests -pl cli -am package \
 && sed -i 's#/root/.m2/repository#/opt/verglas/repository#g' cli/target/launcher.classpath

FROM eclipse-temurin:17-jre
WORKDIR /opt/verglas
COPY --from=build /root/.m2/repository /opt/verglas/repository
COPY --from=build /src/cli/target/verglas-cli.jar /src/cli/target/launcher.classpath /opt/verglas/cli/target/
COPY verglas /opt/verglas/verglas
ENV VERGLAS_JAVA_OPTS="-Xms256m -Xmx2g"
EXPOSE 9100 9101
ENTRYPOINT ["/opt/verglas/verglas", "cache-node"]
CMD ["--origin-endpoint", "http://minio:9000", "--host", "0.0.0.0", "--spool-dir", "/tmp/cache-node-spool"]
