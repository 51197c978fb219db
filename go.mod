module github.com/oomdoc/oomdoc

go 1.26
