# Fails unless DOC (a markdown page) contains EXAMPLE's text verbatim.
file(READ ${DOC} doc)
file(READ ${EXAMPLE} example)
string(FIND "${doc}" "${example}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC} does not show ${EXAMPLE} verbatim; paste the file into its code block")
endif()
