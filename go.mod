module github.com/drdam/drdam

go 1.26.8

require gonum.org/v1/gonum v0.17.0

require golang.org/x/sys v0.49.0

require gonum.org/v1/netlib v0.0.0-20190313105609-8cb42192e0e0 // indirect
