# The observation table of `oraclekit sample recalc`, recomputed with R's survey package (Debian: r-cran-survey,
# r-cran-jsonlite). Usage: Rscript recalc.R design.json observations.csv
#   design.json       the previous design (sample calc --out, or the design of the package)
#   observations.csv  household,value[,stratum]; an empty or NA value is a household sampled but not completed
# Prints CSV: per stratum of the design (in its order) and overall, n, mean, SD (n - 1), SE with the
# finite-population correction, and r = z*SE/mean at z = qnorm(0.975), 17 significant digits. The stratum
# column matches the design's names trimmed and with ASCII letters compared case-insensitively, as recalc does.
# A stratum with more rows than households is refused, as recalc refuses it (R's survey: "FPC implies >100%
# sampling"). The overall row is the stratified estimate (svymean on the stratified design) when every stratum
# has at least two completed observations; for a design of one population it is that population's row.
suppressMessages({
  library(survey)
  library(jsonlite)
})
args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 2) stop("usage: Rscript recalc.R design.json observations.csv")
design <- fromJSON(args[1], simplifyVector = TRUE)
strata <- design$stratification$strata
stratified <- is.data.frame(strata) && nrow(strata) > 0
if (!stratified) strata <- data.frame(name = "all", population = design$parameters$population)

first <- readLines(args[2], n = 1, encoding = "UTF-8")
semicolons <- grepl(";", first) && !grepl(",", first)
obs <- read.csv(args[2], sep = if (semicolons) ";" else ",", dec = if (semicolons) "," else ".",
                colClasses = "character", na.strings = character(0), check.names = FALSE, encoding = "UTF-8")
names(obs) <- tolower(trimws(sub("^\ufeff", "", names(obs))))
if (!"household" %in% names(obs)) names(obs)[names(obs) %in% c("household_id", "id")] <- "household"
key <- function(s) chartr("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", trimws(s))
obs$stratum <- if (stratified) strata$name[match(key(obs$stratum), key(strata$name))] else "all"
obs$N <- strata$population[match(obs$stratum, strata$name)]
rows <- table(factor(obs$stratum, levels = strata$name))
over <- rows > strata$population
if (any(over)) stop(sprintf("stratum %s: %d rows for %d households", strata$name[over][1], rows[over][1],
                            strata$population[over][1]))
raw <- trimws(obs$value)
obs <- obs[raw != "" & toupper(raw) != "NA" & !is.na(obs$stratum), ]
obs$value <- as.numeric(sub(",", ".", trimws(obs$value), fixed = TRUE))

z <- qnorm(0.975)
fmt <- function(v) sprintf("%.17g", as.numeric(v))
out <- data.frame(group = character(), n = integer(), mean = character(), sd = character(), se = character(),
                  precision = character())
row <- function(group, x, m) data.frame(group = group, n = length(x), mean = fmt(coef(m)), sd = fmt(sd(x)),
                                        se = fmt(SE(m)), precision = fmt(z * SE(m) / coef(m)))
d <- svydesign(ids = ~1, strata = ~stratum, fpc = ~N, data = obs)
for (s in strata$name) {
  x <- obs$value[obs$stratum == s]
  if (length(x) == 0) {
    out <- rbind(out, data.frame(group = s, n = 0, mean = "", sd = "", se = "", precision = ""))
    next
  }
  out <- rbind(out, row(s, x, svymean(~value, subset(d, stratum == s))))
}
counts <- table(factor(obs$stratum, levels = strata$name))
if (stratified && all(counts >= 2)) out <- rbind(out, row("overall", obs$value, svymean(~value, d)))
write.csv(out, stdout(), row.names = FALSE, quote = FALSE)
